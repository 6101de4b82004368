/* SPDX-License-Identifier: MIT */
/*
 * The arch contract: what portable code (libutrace/) needs from an
 * architecture.  A new architecture supplies the same names in
 * arch/<arch>/arch.h, patch.c and trampoline.S.  See docs/porting.md.
 */
#ifndef UT_ARCH_H
#define UT_ARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <ucontext.h>

/* An enabled site's call returns to site + UT_ARCH_CALL_SIZE. */
#define UT_ARCH_CALL_SIZE 5
/* Longest site in bytes; every site is 5 or 6 bytes on x86-64. */
#define UT_ARCH_SITE_MAX 6
/* Size of a per-module trampoline stub (see ut_arch_make_stub). */
#define UT_ARCH_STUB_SIZE 8
/* How far a site's call instruction can reach (rel32). */
#define UT_ARCH_CALL_REACH 0x7fff0000LL

/* What the instrumentation compiler left at a function's entry. */
enum ut_site_kind {
	UT_SITE_NONE = 0,
	UT_SITE_NOP5,      /* one 5-byte nop (clang -fpatchable-function-entry, or ours) */
	UT_SITE_NOP1X5,    /* five 1-byte nops (gcc -fpatchable-function-entry=5) */
	UT_SITE_CALL5,     /* call rel32 to __fentry__ (or its PLT stub) */
	UT_SITE_CALL6,     /* call *rel32(%rip) through the GOT slot of __fentry__ */
	UT_SITE_NOP5_NOP1, /* a 6-byte site already turned off by us */
};

/*
 * ut_arch_site_kind - classify the bytes at a candidate site
 * @code: at least UT_ARCH_SITE_MAX readable bytes at @addr
 * @fentry: address __fentry__ resolves to (0 if none), @plt: its PLT stub (0 if none)
 * @got: address of the GOT slot __fentry__ is called through (0 if none)
 * Returns the kind and sets *@len to the site length, or UT_SITE_NONE.
 */
enum ut_site_kind ut_arch_site_kind(const uint8_t *code, uint64_t addr, uint64_t fentry,
				    uint64_t plt, uint64_t got, unsigned *len);

/* Skip an endbr64 at a function start: returns the offset of the site. */
unsigned ut_arch_entry_offset(const uint8_t *code);

/* The disabled form of a site of @len bytes: one 5-byte nop (+ a 1-byte nop). */
void ut_arch_make_nop(uint8_t *buf, unsigned len);

/* The enabled form: call @target from @site (the call returns to site + 5). */
void ut_arch_make_call(uint8_t *buf, unsigned len, uint64_t site, uint64_t target);

/* The breakpoint byte used while a site changes. */
#define UT_ARCH_TRAP_BYTE 0xcc

/*
 * Write at @code (to be mapped at @code_addr) a stub that jumps to the address
 * stored in the 8-byte slot at @slot_addr.  Stubs live within call reach of a
 * module's sites; the slots are plain data, so retargeting a tracer is one
 * aligned store.  UT_ARCH_STUB_SIZE bytes.
 */
void ut_arch_make_stub(uint8_t *code, uint64_t code_addr, uint64_t slot_addr);

struct ut_usdt_arg;
/*
 * The value of USDT argument @a (common/usdt.h) for a thread stopped at its
 * probe with context @uc; @bias: the object's load bias (static operands).
 * @a->size bytes of it, sign- or zero-extended to 64 bits.  Memory operands
 * are what the program's own code would load there.  (usdt_fetch.c)
 */
uint64_t ut_arch_usdt_fetch(const ucontext_t *uc, const struct ut_usdt_arg *a, uint64_t bias);

/*
 * The same from an array of saved registers in the parser's order
 * (usdt_args.c: rax rbx rcx rdx rsi rdi rbp rsp r8..r15 rip): what
 * utrace_usdt_tramp saves for a probe enabled with a jump.  Built without
 * vector registers or library calls: it runs on the probe's fast path.
 */
#define UT_ARCH_USDT_NREGS 17
uint64_t ut_arch_usdt_fetch_regs(const uint64_t *regs, const struct ut_usdt_arg *a, uint64_t bias);
/* ucontext_t's gregs index of the parser's register @r (< UT_ARCH_USDT_NREGS). */
int ut_arch_usdt_greg(unsigned r);

/*
 * USDT probes enabled with a jump (libutrace/usdt_jump.c): the probe's slot
 * is
 *   slot + 0:                 the trampoline's address (called through it)
 *   slot + 8:                 the probe's data (passed to the C hit)
 *   slot + 16:                instructions moved from before the probe, if
 *                             any, then a jump to the call block
 *   slot + UT_ARCH_USDT_CALL: lea -128(%rsp),%rsp; call *slot(%rip);
 *                             lea 128(%rsp),%rsp  (the red zone stepped over)
 *   then:                     the instructions moved from after the probe,
 *                             and the jump back
 * utrace_usdt_tramp (usdt_tramp.S) finds the data from its return address:
 * UT_ARCH_USDT_CALL + 11 after the slot's start.  It saves every general
 * register and the flags into a frame of UT_ARCH_USDT_NREGS + 1 words (the
 * parser's order, then the flags; %rsp as it was at the probe; rip left for
 * the C side) and calls ut_usdt_jump_hit(data, frame): 0 done, else every
 * vector register is saved (xsave) and ut_usdt_jump_slow(data, frame)
 * called for what needs the C library (filters, strings, triggers).
 */
#define UT_ARCH_USDT_CALL 80
#define UT_ARCH_USDT_BLOCK 19
void utrace_usdt_tramp(void);
/* Whether the processor has what the trampoline uses (xsave, lahf); sizes its xsave area.  (usdt_cpu.c) */
bool ut_arch_usdt_jump_ok(void);
/* The signal context of a thread at @pc with the trampoline's @frame: for the int3's code. */
void ut_arch_usdt_context(const uint64_t *frame, uint64_t pc, ucontext_t *uc);
/* The bytes of the call block at @at (UT_ARCH_USDT_BLOCK), calling through @slot's first word. */
void ut_arch_usdt_block(uint8_t *out, uint64_t at, uint64_t slot);

/* From a SIGTRAP context: the address of the trap instruction. */
uint64_t ut_arch_trap_addr(const ucontext_t *uc);
/* Make the interrupted thread resume at @pc. */
void ut_arch_set_pc(ucontext_t *uc, uint64_t pc);
/*
 * In a function that keeps a frame pointer: its caller's stack pointer as
 * it will be after the return (the return address sits just below it).
 */
#define ut_arch_caller_sp() ((uint64_t)__builtin_frame_address(0) + 16)
/* The stack pointer a context made or saved by the ucontext functions resumes with. */
uint64_t ut_arch_context_sp(const ucontext_t *uc);

/* Raw timestamp and CPU for the hot path. */
static inline uint64_t ut_arch_cycles(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

/* A spin-wait's pause: lets the other hyper-thread run and saves power. */
static inline void ut_arch_relax(void)
{
	__asm__ volatile("pause" ::: "memory");
}

static inline void *ut_arch_thread_pointer(void)
{
	void *tp;

	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

/* The 32-bit word at @off from the thread pointer, read now (the rseq CPU number). */
static inline uint32_t ut_arch_tp_load32(long off)
{
	uint32_t v;

	__asm__ volatile("movl %%fs:(%1), %0" : "=r"(v) : "r"(off));
	return v;
}

/*
 * In ut_graph_entry(): the traced function's first argument, which
 * utrace_graph_caller saved (rdi, at the bottom of its FRAME-byte save area,
 * right below the slot holding the function's return address at @slot).
 */
static inline uint64_t ut_arch_entry_arg0(const uint64_t *slot)
{
	return *(const uint64_t *)((const char *)slot - 8 - 80);
}

/* Call fn(arg) with all vector/x87 state saved around it (trampoline.S). */
void ut_arch_call_fpu_safe(void (*fn)(void *), void *arg);
/* Set once at start-up by ut_arch_init_fpu(): XSAVE area size, 0 = FXSAVE. */
extern uint32_t ut_xsave_size;
void ut_arch_init_fpu(void);

/*
 * A `ret` instruction of the object whose dynamic section is @dyn (loaded at
 * @bias) that returns with nothing else on the stack: the end of its _fini
 * (glibc's crti/crtn: `add $8,%rsp; ret`), or NULL.  Also NULL where a
 * shadow stack would refuse a return there.
 */
void *ut_arch_object_ret(const void *dyn, uint64_t bias);
/* Is the thread running with a hardware shadow stack (a return must match a call)? */
bool ut_arch_shadow_stack(void);
/* fn(a0, a1) entered with @ret (from ut_arch_object_ret) as its return address. */
void *ut_arch_call_returning_via(void *(*fn)(const char *, int), void *ret, const char *a0,
				 int a1);

/*
 * The trampolines (trampoline.S).  trampoline.S also defines makecontext:
 * ut_context_made(ucp) (libutrace/context.c) sees the new context and gives
 * the real makecontext, which it jumps to with the variadic arguments intact.
 */
void utrace_func_caller(void);
void utrace_graph_caller(void);
void utrace_graph_return(void);
/* An inlined instance's site (libutrace/inlined.c), every tracer: calls ut_inlined_hit. */
void utrace_inl_caller(void);

/*
 * Library calls (plt_stub.c, plt_trampoline.S): a stub per traced library
 * function loads its hook and jumps to utrace_plt_entry.
 */
#define UT_ARCH_PLT_STUB_SIZE 32
void ut_arch_make_plt_stub(uint8_t *code, uint64_t hook, uint64_t entry);
/* Does @code (where a GOT slot points) look like a PLT entry waiting for lazy binding? */
bool ut_arch_plt_lazy_entry(const uint8_t *code);
void utrace_plt_entry(void);

#endif
