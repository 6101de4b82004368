/* SPDX-License-Identifier: MIT */
/*
 * The one site finder: which addresses of an ELF object are sites, and
 * which function each one belongs to.  The runtime (libutrace/sites.c)
 * runs it over the object in memory, the tools (common/elfsites.c: `list
 * -f`, record's filter check, the mount's function lists) over the file, so
 * that what is listed, what filters accept and what is patched are one set.
 *
 *  -fpatchable-function-entry=N  __patchable_function_entries lists the sites;
 *  -pg -mfentry -mrecord-mcount  __mcount_loc lists them;
 *  -pg -mfentry                  no list: each function symbol whose first
 *                                instruction (after endbr64) calls __fentry__
 *                                (directly, through its PLT stub, or
 *                                `call *__fentry__@GOTPCREL(%rip)`).
 * Every candidate is then checked against the bytes (arch/<arch>/sitekind.c)
 * and named after the function symbol covering it; one no symbol covers
 * is left out.  The other symbols at that function's address are its
 * other names (ut_symtab_aliases): callers add them to the filter table,
 * so that any of them selects the one site.
 */
#ifndef UT_SITEFIND_H
#define UT_SITEFIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/symbols.h"

struct ut_sitefind;

/*
 * Where the bytes come from.  @code: @len readable bytes of code at the
 * run-time address @addr (inside an executable segment), or NULL.
 * @word: the 8-byte list entry at link-time address @vaddr of a site list
 * section (relocated as the loader would), false if it cannot be read.
 */
struct ut_sitefind_src {
	const uint8_t *(*code)(struct ut_sitefind *f, uint64_t addr, size_t len);
	bool (*word)(struct ut_sitefind *f, uint64_t vaddr, uint64_t *out);
	void *ctx; /* the source's own state */
};

struct ut_sitefind {
	/* set by the caller */
	void *elf;        /* the object's file (an Elf *), for its sections */
	uint64_t bias;    /* run-time address = link-time address + bias */
	uint64_t fentry;  /* run-time address of __fentry__, 0 if unknown */
	struct ut_sitefind_src src;
	/* found */
	bool listed;      /* the object has a site list section */
	uint64_t fentry_plt, fentry_got, fentry_slot; /* run-time addresses, 0 if none */
	uint64_t *addrs;  /* candidates, then (after ut_sitefind_finish) sites, sorted */
	uint8_t *lens;    /* each site's length (after ut_sitefind_finish) */
	size_t nr, cap;
};

/*
 * Read the site lists and where __fentry__ calls go.  Returns 0, -ENOEXEC
 * or -ENOMEM.  Afterwards ut_sitefind_by_symbols() tells whether the sites
 * are to be found from the symbols.
 */
int ut_sitefind_scan(struct ut_sitefind *f);

/* Without a list, the sites are the function entries that call __fentry__. */
bool ut_sitefind_by_symbols(const struct ut_sitefind *f);

/* Add the entries of @st's functions (run-time addresses) that call __fentry__. */
int ut_sitefind_fentry_calls(struct ut_sitefind *f, const struct ut_symtab *st);

/* Sort, drop duplicates and candidates whose bytes are no site; fill ->lens. */
int ut_sitefind_finish(struct ut_sitefind *f);

/*
 * The function symbol of @st covering the site at @a, or NULL: the last
 * symbol at or below @a, if its size (when known) reaches @a.  Sites are
 * named in increasing order; @k (start at 0) walks @st alongside.
 */
const struct ut_sym *ut_sitefind_symbol(const struct ut_symtab *st, size_t *k, uint64_t a);

void ut_sitefind_free(struct ut_sitefind *f);

/* --- the architecture's encodings (arch/<arch>/sitekind.c) ---------------- */

/* Longest a site test reads at an entry: a landing pad (endbr64) and a site. */
#define UT_SITE_PROBE 10

/* The longest site, in bytes (what a site test at a listed address reads). */
unsigned ut_site_max(void);

/* Bytes to skip at a function's entry before its site (a landing pad). */
unsigned ut_site_entry_offset(const uint8_t *code);

/*
 * The length of the site at @code (run-time address @addr, UT_SITE_PROBE
 * readable bytes), or 0 if it is none.  @fentry, @plt, @got: where a call
 * to __fentry__ may go (0 for unknown).
 */
unsigned ut_site_length(const uint8_t *code, uint64_t addr, uint64_t fentry, uint64_t plt,
			uint64_t got);

/* Where the direct call at @code (address @addr) goes; false if it is no direct call. */
bool ut_site_call_target(const uint8_t *code, uint64_t addr, uint64_t *target);

/* The GOT slot a PLT stub at @code (address @addr, 16 bytes) jumps through, or 0. */
uint64_t ut_site_plt_slot(const uint8_t *code, uint64_t addr);

#endif
