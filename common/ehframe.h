/* SPDX-License-Identifier: MIT */
/*
 * Function starts from the call-frame information: every function a
 * compiler emits for x86-64 Linux has an FDE in .eh_frame (unless built
 * with -fno-asynchronous-unwind-tables), stripped binaries included, and
 * the .eh_frame_hdr search table (PT_GNU_EH_FRAME) lists their starts,
 * sorted.  Patched prologues need them when an object has no .symtab
 * (common/prologue.h): the code of its static functions, which .dynsym
 * does not name, must still be checked for branches into another
 * function's first bytes.
 *
 * Read through a callback giving bytes at an address, so the runtime reads
 * the object as mapped (run-time addresses) and the tools the file
 * (link-time addresses).  Nothing is trusted: each FDE must point back to a
 * well-formed CIE and begin where the table says, else the table is
 * refused as a whole (an object whose .eh_frame was removed keeps its
 * .eh_frame_hdr, pointing at whatever follows).
 */
#ifndef UT_EHFRAME_H
#define UT_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

/* One FDE's code: [lo, hi). */
struct ut_eh_range {
	uint64_t lo, hi;
};

/* @len bytes at @addr, or NULL if they are not there (not mapped, past the file). */
typedef const uint8_t *(*ut_eh_read_fn)(void *ctx, uint64_t addr, size_t len);

/*
 * The code ranges of the FDEs listed by the .eh_frame_hdr at @hdr, sorted
 * by start, in *@out (malloc'd; the caller frees it).  Return: how many
 * (> 0), or -ENOENT (no usable table, or an FDE that does not match it),
 * -ENOTSUP (encodings other than GNU ld's), -ENOMEM.
 */
long ut_eh_ranges(uint64_t hdr, ut_eh_read_fn read, void *ctx, struct ut_eh_range **out);

#endif
