/* SPDX-License-Identifier: MIT */
/*
 * Where an object's debug info is: its own .debug_info, else a separate
 * file found by build-id (DIR/.build-id/xx/rest.debug under each debug
 * directory: UTRACE_DEBUG_DIR, colon-separated, else /usr/lib/debug), else
 * by .gnu_debuglink (next to the object, in its .debug/, or under a debug
 * directory followed by the object's directory).  A candidate whose
 * build-id differs from the object's is never used, and the refusal is
 * told.  Tools only.
 */
#ifndef UT_DEBUGFILE_H
#define UT_DEBUGFILE_H

#include <stddef.h>

/*
 * Open the debug info of the ELF object @path (@elf: its Elf *, open).
 * Return: a descriptor of the file holding it (the caller closes it; it
 * may be a new descriptor of @path itself), its path in @found; or -1 if
 * there is none.  @note receives why a candidate was refused ("" if none).
 */
int ut_debugfile_open(const char *path, void *elf, char *found, size_t flen, char *note,
		      size_t nlen);

/* Whether the ELF @elf has DWARF of its own (a .debug_info with contents). */
int ut_debugfile_has_dwarf(void *elf);

#endif
