/* SPDX-License-Identifier: MIT */
/*
 * Functions the compiler inlined: every inlined instance of every function
 * of an object, from its DWARF (libdw).  The debug info is the object's own
 * (.debug_info), else a separate file found by build-id under the debug
 * directories (UTRACE_DEBUG_DIR, a colon-separated list; /usr/lib/debug,
 * where Debian's -dbgsym packages put it), else through .gnu_debuglink.  A
 * file whose build-id is not the object's is never used: the table says so.
 *
 * Tools only (the runtime never reads DWARF), and lazily: a table is read
 * when a filter word or an option asks, and kept per build-id for the
 * process's life (the mount asks again and again).
 */
#ifndef UT_INLINED_H
#define UT_INLINED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One inlined instance.  Strings point into the debug info, kept open. */
struct ut_inl {
	const char *func;  /* the function inlined: linkage name (C++: mangled) */
	const char *in;    /* the out-of-line function it sits in (DWARF's name) */
	const char *via;   /* the inlined function directly around it, or NULL */
	uint64_t cu;       /* its compilation unit (DIE offset), for ut_inlined_file() */
	unsigned fileno;   /* the call's file: 1 + its index in the unit's file table; 0: none */
	unsigned line;     /* the call's line, 0 if unknown */
	unsigned depth;    /* 1: directly in @in; 2: inside another inlined body... */
	unsigned nr_ranges; /* address ranges of its code (0: no code left) */
	uint64_t entry;    /* entry address (link-time), 0 if it has none */
	uint64_t lo, hi;   /* lowest and highest address of its code */
};

enum ut_inl_status {
	UT_INL_OK,      /* debug info read whole */
	UT_INL_NODEBUG, /* none found: whether anything was inlined is unknown */
	UT_INL_DAMAGED, /* read in part: what it does not cover is unknown */
};

struct ut_inltab {
	int status;            /* enum ut_inl_status */
	char source[4096];     /* the file the debug info came from ("" if none) */
	char note[512];        /* a debug file refused (another build), or the damage */
	struct ut_inl *v;      /* by function name, then entry address */
	size_t n, cap;
	/* kept open: the names point into them */
	void *dwarf, *elf;
	int fd;
};

/*
 * The inlined instances of the ELF object at @path, read at the first call
 * and cached by build-id (by path, size and mtime for an object without
 * one).  Never NULL for an existing file but on ENOMEM: a table without
 * debug info says so in ->status.
 */
const struct ut_inltab *ut_inlined_of(const char *path);

/* How many instances of @name @t holds; *@first receives the first one. */
size_t ut_inlined_find(const struct ut_inltab *t, const char *name, const struct ut_inl **first);

/*
 * The file of @v's call, relative to its unit's directory when under it, or
 * NULL.  Read when asked (a unit's file table costs more than the whole
 * scan of its instances): the scan only notes the index.
 */
const char *ut_inlined_file(const struct ut_inltab *t, const struct ut_inl *v);

/*
 * Scan an ELF already open (@elf: an Elf *) as its own debug info into @t
 * (status, instances): the part ut_inlined_of() and the fuzz target share.
 * Return: 0, or -ENOMEM.
 */
int ut_inlined_scan_elf(struct ut_inltab *t, void *elf);

/* Free a table filled by ut_inlined_scan_elf() (not one of the cache's). */
void ut_inlined_release(struct ut_inltab *t);

/* Drop the cache (at exit, so leak checkers see nothing left). */
void ut_inlined_forget_all(void);

#endif
