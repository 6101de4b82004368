/* SPDX-License-Identifier: MIT */
/*
 * utrace_plt_entry - where a traced library call enters the tracer.
 *
 * A GOT slot of a traced library function points at the function's stub
 * (arch/x86_64/plt_stub.c), which loads the function's hook (struct
 * ut_plt_fn, libutrace/plthook.h) into %r11 and jumps here.  On entry:
 *
 *     0(%rsp)  the caller's return address (the call went through the GOT)
 *     %r11     the hook: 0(%r11) is the real function to continue to
 *
 * %rsp is 8 mod 16, as at any function's first instruction.  Every argument
 * register is live (rdi rsi rdx rcx r8 r9, rax for varargs, r10); r11 is
 * scratch at a call through the PLT, which is why the stub may use it.
 * The tracers' common cases are done here, as utrace_func_caller and
 * utrace_graph_caller do a site's (tramp_macros.inc), keeping what they
 * use in the red zone: the function tracer's FUNCTION record (the library
 * function's address and the caller's return address); function_graph's
 * and the profiler's shadow frame, record or hit, and 0(%rsp) replaced
 * with utrace_graph_return.  Anything else goes to ut_plt_enter()
 * (libutrace/tracers/plt.c, built with -mgeneral-regs-only), which records
 * the call as its tracer would at a site.
 * Then the real function runs with the stack exactly as its caller left
 * it, so it returns to the caller (or through utrace_graph_return) itself.
 */
#include "tramp_macros.inc"

	.text
	.globl	utrace_plt_entry
	.hidden	utrace_plt_entry
	.type	utrace_plt_entry, @function
utrace_plt_entry:
	.cfi_startproc
	RED_SAVE7
	mov	ut_quiet@gottpoff(%rip), %rsi
	cmpl	$0, %fs:(%rsi)
	jne	.Lp_slow			/* the runtime's own call */
	mov	PF_TRACER(%r11), %rax
	mov	(%rax), %rax
	lea	utrace_func_caller(%rip), %rdx
	cmp	%rdx, %rax
	je	.Lp_func
	lea	utrace_graph_caller(%rip), %rdx
	cmp	%rdx, %rax
	jne	.Lp_slow
	/* function_graph, the profiler: the return address is at 0(%rsp) */
	GRAPH_ENTER (%rsp), PF_IP(%r11), 0, .Lp_done, .Lp_slow, .Lp_slow_busy
.Lp_func:
	FUNC_RECORD PF_IP(%r11), 0, (%rsp), .Lp_done, .Lp_slow, .Lp_slow_busy
.Lp_done:
	RED_LOAD7
	jmp	*0(%r11)			/* the real function */
.Lp_slow_busy:
	movl	$0, %fs:T_BUSY(%rcx)
.Lp_slow:
	RED_LOAD7
	sub	$72, %rsp			/* 9 words: %rsp 16-byte aligned for the call */
	.cfi_adjust_cfa_offset 72
	mov	%rdi, 0(%rsp)
	mov	%rsi, 8(%rsp)
	mov	%rdx, 16(%rsp)
	mov	%rcx, 24(%rsp)
	mov	%r8, 32(%rsp)
	mov	%r9, 40(%rsp)
	mov	%rax, 48(%rsp)
	mov	%r10, 56(%rsp)
	mov	%r11, 64(%rsp)
	mov	%r11, %rdi			/* the hook */
	lea	72(%rsp), %rsi			/* where the caller's return address lives */
	call	ut_plt_enter
	mov	0(%rsp), %rdi
	mov	8(%rsp), %rsi
	mov	16(%rsp), %rdx
	mov	24(%rsp), %rcx
	mov	32(%rsp), %r8
	mov	40(%rsp), %r9
	mov	48(%rsp), %rax
	mov	56(%rsp), %r10
	mov	64(%rsp), %r11
	add	$72, %rsp
	.cfi_adjust_cfa_offset -72
	jmp	*0(%r11)			/* the real function */
	.cfi_endproc
	.size	utrace_plt_entry, .-utrace_plt_entry

	.section .note.GNU-stack,"",@progbits
