/* SPDX-License-Identifier: MIT */
/*
 * What a session keeps of each object it loaded, so that its trace can be
 * named after the process is gone, even when the object's file has been
 * rebuilt or deleted since:
 *
 *  - the object's identity when it was loaded: its GNU build-id (read from
 *    the loaded image's notes), and the file's size and mtime (which are all
 *    an object built without a build-id has);
 *  - a snapshot of its function symbols, "syms.<N>" in the session, written
 *    by the runtime when it loads the object (it reads the symbol table to
 *    name the sites anyway): the same table a reader would load from the
 *    file, relative to the load bias.
 *
 * Readers name from the file when it is still the object that was loaded,
 * else from the snapshot, and say so (docs/shm-abi.md).
 */
#ifndef UT_SYMSNAP_H
#define UT_SYMSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/symbols.h"

#define UT_BUILD_ID_MAX 64 /* bytes; GNU build-ids are 20 (sha1) or 16 (md5) */

struct ut_objid {
	char build_id[2 * UT_BUILD_ID_MAX + 1]; /* hex; "" if the object has none */
	uint64_t size;                          /* the file's size and mtime (ns) */
	uint64_t mtime_ns;
};

/*
 * The hex build-id of the NT_GNU_BUILD_ID note in @len bytes of ELF notes at
 * @notes (a PT_NOTE segment or SHT_NOTE section, native byte order, entries
 * aligned to @align: 4, or 8 for an 8-aligned segment), into @hex
 * (UT_BUILD_ID_MAX * 2 + 1 bytes).  Return: true if one was found.
 */
bool ut_build_id_from_notes(const void *notes, size_t len, size_t align, char *hex);

/* The identity of the file at @path now.  Return: 0 or a negative errno. */
int ut_objid_of_file(const char *path, struct ut_objid *id);

/*
 * Is the file that @now describes the object @then describes?  The build-id
 * decides when the loaded object had one; else size and mtime.
 */
bool ut_objid_same(const struct ut_objid *then, const struct ut_objid *now);

/*
 * Write the snapshot of @st (one object's symbols, relocated by @bias) to
 * the file @name in the directory @dirfd, created 0600 (never over an
 * existing file or through a symlink).  Return: 0 or a negative errno.
 */
int ut_symsnap_write(int dirfd, const char *name, const struct ut_symtab *st, uint64_t bias);

/*
 * Add the symbols of the snapshot at @path to @st, relocated by @bias and
 * tagged with @module (NULL for the program).  Untrusted input: malformed
 * lines are skipped; a file another user owns or may write is refused
 * (-EINVAL).  Return: the number added, or a negative errno.
 */
int ut_symsnap_load(struct ut_symtab *st, const char *path, uint64_t bias, const char *module);

#endif
