/* SPDX-License-Identifier: MIT */
/*
 * Out-of-line patches: instructions moved to a slot so that a site (or a
 * jump to one) can take their place, while other threads run them.  Two
 * kinds use them: patched prologues (prologue.c: a site at a function's
 * entry, then `jmp slot`) and inlined instances (inlined.c: `jmp slot` in
 * the middle of a function, the site inside the slot).  prologue.c owns
 * the slot memory and the installer (int3 first, threads moved out of the
 * moved bytes, the rest, the first byte); each kind plans its patches and
 * says what goes at E.
 */
#ifndef UT_OOL_H
#define UT_OOL_H

#include <stddef.h>
#include <stdint.h>

#include "common/prologue.h"

/* One patch: E = entry + plan.skip, the address whose bytes are moved. */
struct ut_ool {
	uint64_t entry;                 /* the function holding E (its start) */
	struct ut_pro_plan plan;
	uint64_t slot;                  /* the moved instructions' new place; 0 until written */
	uint64_t jump_to;               /* 0: a prologue (site at E, then jmp slot);
					 * else E becomes `jmp jump_to` (an inlined
					 * instance's slot), where a thread trapping
					 * at E resumes too */
	uint8_t map[UT_PRO_MAX_INSN];   /* moved instruction i is at slot + map[i] */
	uint8_t state;                  /* UT_OOL_* */
	uint8_t first;                  /* E's first byte before the patch */
};

enum { UT_OOL_PENDING, UT_OOL_TRAPPING, UT_OOL_READY, UT_OOL_FAILED };

/* The segments of a loaded object (run-time addresses). */
struct ut_ool_segs {
	uint64_t lo[16], hi[16];   /* executable ones */
	int n;
	uint64_t rlo[16], rhi[16]; /* all of them (a .eh_frame_hdr is read-only data) */
	int nr;
	uint64_t eh_hdr;           /* PT_GNU_EH_FRAME's run-time address, 0 if none */
};

struct ut_module;
void ut_ool_segments(const struct ut_module *m, struct ut_ool_segs *g);
/* A ut_pro_code_fn over @ctx, a struct ut_ool_segs: @len bytes at @addr if they are code. */
const uint8_t *ut_ool_code(void *ctx, uint64_t addr, size_t len);

/* @size bytes of slot memory within reach of @e (RX: written through poke()); 0 if none. */
uint64_t ut_ool_slot_for(uint64_t e, uint64_t size);

/*
 * The calling thread trapped on a batch's E (and resumes in its slot): its
 * answer to the installer's round, if it was asked.  Async-signal-safe.
 */
void ut_ool_trap_answers(void);

/* @n sites by their addresses @sites (ascending), their entries @e and @names alike. */
void ut_ool_sort_sites(struct ut_ool *e, const char **names, uint64_t *sites, size_t n);

/*
 * The module of @kind holding the out-of-line patches @e (@n of them, by
 * their sites' addresses @sites, which name functions @names) for the
 * object of module @of: made, its stub ready (leading to @tramp, if not 0,
 * whatever the tracer), published, its functions in the filter table.
 * NULL if it could not be made.  Under ut_rt.lock.
 */
struct ut_module *ut_ool_module(struct ut_module *of, unsigned kind, struct ut_ool *e, size_t n,
				 const uint64_t *sites, const char **names, uint64_t tramp);

/*
 * The session's names for @p's sites (they are in slots, where no symbol
 * is): "names.<index>", logged in "modules" as `names 0 MOD FILE [TAG]`.
 * @tag NULL: inlined instances; "prologue": functions of the object whose
 * sites are in their slots (readers list them with the object's own).
 */
void ut_ool_log_names(const struct ut_module *p, const char *const *names, const char *tag);

/*
 * Install the patches @v (@n of them, their slots written and jump_to
 * set: E becomes `jmp jump_to`) with the live protocol (int3 first,
 * threads moved out of the moved bytes, the rest, the first byte).  Each
 * ends UT_OOL_READY, or UT_OOL_FAILED with E as it was.  0 or -errno.
 * Under ut_rt.lock.
 */
int ut_ool_install(struct ut_ool *const *v, uint32_t n);

/* Write @len bytes at @addr of the process's text or slots (/proc/self/mem).  0 or -EIO. */
int ut_ool_poke(uint64_t addr, const void *buf, size_t len);

#endif
