/* SPDX-License-Identifier: MIT */
/*
 * Patched prologues: the second kind of site, for functions the compiler
 * gave none (a plain -O2 build, a Debian library).  The first instructions
 * of such a function are moved, whole, to an out-of-line slot near it, and
 * their place becomes a site the patcher toggles like a compiler's:
 *
 *   entry:   [endbr64]            kept: an indirect call must still land here
 *   E:       5-byte nop / call    the site: nop while off, `call stub` when on
 *   E + 5:   jmp slot             where a call through the site returns to
 *   E + 10:  int3 ...             the rest of the moved bytes, never run
 *   slot:    the moved instructions (rip-relative operands and relative
 *            branches rewritten for their new place), then jmp E + moved
 *
 * Ten bytes, not five: the trampolines take the function from their return
 * address (ip = return - 5), so a call at E must return to E + 5, which
 * leads to the moved instructions.  The stack the trampolines see is then
 * exactly a compiler site's, and the graph tracer's return hook, the
 * profiler and the filters need nothing new.
 *
 * This header is the portable contract: which function can be patched
 * (ut_pro_plan, with the reason when it cannot), the slot's code
 * (ut_pro_relocate) and the bytes written at E (ut_pro_patch), all in
 * arch/<arch>/relocate.c.  The runtime's installer is libutrace/prologue.c;
 * the tools use the plan to list kinds and refusals (`list -f`).
 */
#ifndef UT_PROLOGUE_H
#define UT_PROLOGUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a function gets no patched prologue (UT_PRO_OK: it can). */
enum ut_pro_why {
	UT_PRO_OK = 0,
	UT_PRO_SHORT,      /* fewer bytes than the patch needs */
	UT_PRO_UNDECODABLE,/* an instruction the decoder does not know */
	UT_PRO_RETURN,     /* a ret or an indirect jump among the moved bytes */
	UT_PRO_TARGET,     /* a branch of its own lands inside the moved bytes */
	UT_PRO_FOREIGN,    /* another function's branch lands inside them (a .cold part) */
	UT_PRO_JUMPTABLE,  /* an indirect jump (jump table?) whose targets are unknown */
	UT_PRO_INSN,       /* a moved instruction that cannot run elsewhere */
	UT_PRO_REACH,      /* a moved operand out of reach of the slot */
	UT_PRO_MODULE,     /* its object is not patched (the C runtime, the loader) */
	UT_PRO_NOSIZE,     /* its size is unknown: its own branches cannot be checked */
	UT_PRO_ENTRY,      /* an entry point not reached by a call (_start) */
	UT_PRO_CRT,        /* the C runtime's start-up code linked into the object */
	UT_PRO_INSTALL,    /* the patch could not be written */
	UT_PRO_BOUNDARY,   /* inlined: its entry is not an instruction boundary */
	UT_PRO_NOENTRY,    /* inlined: no entry address (its code is spread or gone) */
	UT_PRO_OVERLAP,    /* inlined: its bytes are moved or owned by another site */
	UT_PRO_NOFUNC,     /* inlined: no function symbol holds its entry */
	UT_PRO_NOFRAMES,   /* stripped, without .eh_frame: its other functions' code is unknown */
	UT_PRO_NR
};

/* The reason as `list -f --untraceable` prints it. */
const char *ut_pro_why_text(enum ut_pro_why why);
/* The reason an inlined instance gets no site (`list -f --inlined`). */
const char *ut_pro_why_text_at(enum ut_pro_why why);

/*
 * Bytes the patch overwrites after the landing pad: a site and `jmp slot`.
 * Where they cannot all move (a return, a call or a branch target among
 * them, or the function is shorter), the short form moves 5 (UT_PRO_JUMP):
 * E becomes `jmp slot`, the slot holds the site, then the moved
 * instructions.
 */
#define UT_PRO_PATCH 10
/* Most instructions moved (each at least one byte, the last one up to 15). */
#define UT_PRO_MAX_INSN 24
/* Room for one slot's code: moved instructions grown by rewriting, and the jump back. */
#define UT_PRO_SLOT 96

struct ut_pro_plan {
	uint32_t skip;                   /* bytes kept before the moved ones: the landing
					  * pad (endbr64); for an inlined instance, its
					  * offset in the function it sits in */
	uint8_t moved;                   /* bytes moved from entry + skip, whole instructions */
	uint8_t nr;                      /* instructions moved */
	uint8_t call;                    /* the last one is a call (moved as push + jmp) */
	uint8_t jump;                    /* the short form: E becomes `jmp slot` and the
					  * site lives in the slot (a function whose
					  * first 10 bytes cannot all move, but 5 can) */
	uint8_t off[UT_PRO_MAX_INSN];    /* each one's offset in the moved bytes */
};

/*
 * Can the function whose @size bytes of code are at @code (run-time address
 * @addr) be patched?  Decodes the whole function: its own branches must not
 * land in the moved bytes.  Fills @p when the answer is UT_PRO_OK.
 */
struct ut_pro_data;
enum ut_pro_why ut_pro_plan(const uint8_t *code, size_t size, uint64_t addr,
			    const struct ut_pro_data *d, struct ut_pro_plan *p);

/*
 * The targets of the direct branches and calls of the function at @code
 * (@size bytes, address @addr) that lie outside it: @cb for each.  Used to
 * refuse a function another one jumps into (a .cold part jumping back).
 */
void ut_pro_targets(const uint8_t *code, size_t size, uint64_t addr,
		    void (*cb)(void *ctx, uint64_t target), void *ctx);

/*
 * The slot's code for @p's moved instructions (at @code, run-time address
 * @addr = the function's entry) when the slot is at @slot: written to @out
 * (UT_PRO_SLOT bytes), its length in *@len; @map[i] is where moved
 * instruction i starts in the slot (a thread stopped before it resumes
 * there).  UT_PRO_REACH when an operand or the jump back cannot reach.
 */
enum ut_pro_why ut_pro_relocate(const struct ut_pro_plan *p, const uint8_t *code, uint64_t addr,
				uint64_t slot, uint8_t *out, size_t *len, uint8_t *map);

/* The @p->moved bytes written at entry + skip (@e): nop5, jmp @slot, int3s. */
void ut_pro_patch(const struct ut_pro_plan *p, uint64_t e, uint64_t slot, uint8_t *out);

/*
 * Inlined instances (common/inlsite.h): a patch at an address inside a
 * function, where the function's registers, flags and red zone are live.
 * Only a jump goes there (UT_PRO_JUMP bytes); the slot it leads to steps
 * below the red zone, holds the site, steps back and runs the moved
 * instructions (libutrace/inlined.c writes it).
 */
#define UT_PRO_JUMP 5

/*
 * Can the instruction at @at, inside the function whose @size bytes of code
 * are at @code (run-time address @addr), be moved with the ones after it
 * for a jump?  @at must be an instruction boundary of a linear sweep from
 * @addr (UT_PRO_BOUNDARY), and no branch of the function may land after
 * @at inside the moved bytes (landing on @at itself is fine: it runs the
 * jump).  Nops at @at (padding before an aligned loop) are stepped over:
 * the jump goes after them.  Fills @p (the jump at @addr + skip) when the
 * answer is UT_PRO_OK.
 */
enum ut_pro_why ut_pro_plan_at(const uint8_t *code, size_t size, uint64_t addr, uint64_t at,
			       struct ut_pro_plan *p);

/* The @p->moved bytes written at @e for an inlined instance: jmp @to, int3s. */
void ut_pro_patch_jump(const struct ut_pro_plan *p, uint64_t e, uint64_t to, uint8_t *out);

/*
 * USDT probes (libutrace/usdt_jump.c): an enabled probe's 1-byte nop, in
 * the middle of a function, becomes part of a 5-byte jump to a slot that
 * records the probe and runs the moved instructions.  The jump starts at
 * the nop, or a few instructions before it when a branch lands right after
 * it (the code after an `if`): the window [S, S + moved) holds the nop as
 * moved instruction *@nop.  @reject says whether a window the function
 * allows is still refused (its bytes another site's, another function's
 * branch into it): UT_PRO_OK if not.  Fills @p (skip = S - @addr).
 */
typedef enum ut_pro_why (*ut_pro_reject_fn)(void *ctx, uint64_t lo, uint64_t hi);
enum ut_pro_why ut_pro_plan_probe(const uint8_t *code, size_t size, uint64_t addr, uint64_t at,
				  ut_pro_reject_fn reject, void *ctx, struct ut_pro_plan *p,
				  unsigned *nop);

/* The reason a probe is enabled with an int3 rather than a jump. */
const char *ut_pro_why_text_probe(enum ut_pro_why why);

/*
 * Objects whose functions are never patched: the dynamic loader and the C
 * runtime (entry points reached other than by a call -- _start, signal
 * returns, setjmp, vfork -- and the code the tracer itself runs on).
 * Library calls into them are the PLT hooks' business.  @path: the file.
 */
bool ut_pro_module_refused(const char *path);

/*
 * Every function of @st (run-time addresses) without a site of the
 * compiler's (@sites: @nsites sorted addresses), with the verdict: @cb gets
 * the symbol, UT_PRO_OK and the plan, or the reason.  @code gives @len
 * bytes of code at a run-time address, or NULL when they are not code.
 */
struct ut_symtab;
struct ut_sym;
typedef const uint8_t *(*ut_pro_code_fn)(void *ctx, uint64_t addr, size_t len);
typedef void (*ut_pro_found_fn)(void *ctx, const struct ut_sym *s, enum ut_pro_why why,
				const struct ut_pro_plan *p);

/*
 * The object's data at run-time addresses (@read: @len bytes, or NULL),
 * where a switch's jump table is read: a function whose indirect jumps are
 * all switches whose tables say where they go is planned as any (its
 * targets checked like its direct branches); without it (NULL), or for any
 * other indirect jump, the function is refused (UT_PRO_JUMPTABLE).
 */
struct ut_pro_data {
	ut_pro_code_fn read;
	ut_pro_code_fn code; /* the same for code only: where a table's entries may lead */
	void *ctx;
};

/*
 * A stripped object (no .symtab): its functions are those .dynsym names,
 * and its static functions' code, which may branch into their first bytes
 * (a .cold part jumping back), is known only from its FDEs
 * (common/ehframe.h): @v, @n of them, swept for such branches with the
 * named functions.  A function only an FDE knows has no name, and is not
 * offered (no made-up names: the readers could not print them).  With no
 * FDE (@n 0: no usable .eh_frame), nothing can be checked: every function
 * is refused, UT_PRO_NOFRAMES.
 */
struct ut_eh_range;
struct ut_pro_frames {
	const struct ut_eh_range *v;
	size_t n;
};

/* @frames: NULL for an object with a .symtab, else what its .eh_frame says. */
void ut_pro_walk(const struct ut_symtab *st, const uint64_t *sites, size_t nsites,
		 const struct ut_pro_frames *frames, ut_pro_code_fn code, void *code_ctx,
		 const struct ut_pro_data *data, ut_pro_found_fn cb, void *cb_ctx);

/*
 * Inlined instances as sites: the verdict on each entry address @at[i]
 * (run-time, sorted, 0 for an instance without one) of an object whose
 * functions are @st: the function it sits in, and the plan or the reason.
 * @busy: @nbusy sorted, disjoint ranges (pairs lo, hi) whose bytes other
 * sites own (compiler sites, patched prologues, USDT probes); an instance
 * whose moved bytes meet one, or the previous instance accepted, is
 * UT_PRO_OVERLAP.
 */
struct ut_pro_at {
	enum ut_pro_why why;
	struct ut_pro_plan plan;
	const struct ut_sym *fn;  /* the function holding @at, NULL if none */
};
void ut_pro_walk_at(const struct ut_symtab *st, ut_pro_code_fn code, void *code_ctx,
		    const uint64_t *at, size_t n, const uint64_t *busy, size_t nbusy,
		    struct ut_pro_at *out);

/*
 * The verdict on each probe address @at[i] (run-time, sorted) of an object
 * whose functions are @st, as ut_pro_walk_at's: @busy ranges are other
 * sites' bytes (the probes' own nops among them: a probe's window may hold
 * its own nop only), windows do not overlap each other.  @frames: NULL for
 * an object with a .symtab; for a stripped one, its FDEs (ut_pro_walk's):
 * a probe in code .dynsym does not name is judged within its FDE's range,
 * and every FDE's code is swept for branches into the windows (none: every
 * probe UT_PRO_NOFRAMES).
 */
struct ut_pro_probe_at {
	enum ut_pro_why why;
	struct ut_pro_plan plan;
	unsigned nop;             /* the probe's nop is moved instruction nop */
	uint64_t lo;              /* the code holding it (function or FDE): plan.skip's base */
};
void ut_pro_walk_probes(const struct ut_symtab *st, const struct ut_pro_frames *frames,
			ut_pro_code_fn code, void *code_ctx, const uint64_t *at, size_t n,
			const uint64_t *busy, size_t nbusy, struct ut_pro_probe_at *out);

#endif
