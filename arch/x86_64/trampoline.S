/* SPDX-License-Identifier: MIT */
/*
 * x86-64 trampolines.  A patched site is `call <module stub>` at a function's
 * entry; the stub jumps here.  On entry:
 *
 *     0(%rsp)  return address into the traced function = site + 5
 *     8(%rsp)  the traced function's own return address (its caller, "parent")
 *
 * and %rsp is 16-byte aligned (the caller's call pushed 8, the site's call 8).
 * The traced function has not run a single instruction yet, so every argument
 * register is live: rdi rsi rdx rcx r8 r9, rax (vector count for varargs),
 * r10 (static chain), and r11 is saved to be safe.  Vector registers are not
 * saved: everything the trampolines call is built with -mgeneral-regs-only.
 */
	.text

#define FRAME 80	/* 9 saved registers + 8 bytes to keep 16-byte alignment */

.macro SAVE_ARGS
	sub	$FRAME, %rsp
	.cfi_adjust_cfa_offset FRAME
	mov	%rdi, 0(%rsp)
	mov	%rsi, 8(%rsp)
	mov	%rdx, 16(%rsp)
	mov	%rcx, 24(%rsp)
	mov	%r8, 32(%rsp)
	mov	%r9, 40(%rsp)
	mov	%rax, 48(%rsp)
	mov	%r10, 56(%rsp)
	mov	%r11, 64(%rsp)
.endm

.macro RESTORE_ARGS
	mov	0(%rsp), %rdi
	mov	8(%rsp), %rsi
	mov	16(%rsp), %rdx
	mov	24(%rsp), %rcx
	mov	32(%rsp), %r8
	mov	40(%rsp), %r9
	mov	48(%rsp), %rax
	mov	56(%rsp), %r10
	mov	64(%rsp), %r11
	add	$FRAME, %rsp
	.cfi_adjust_cfa_offset -FRAME
.endm

/*
 * utrace_func_caller - the function tracer's entry: records (ip, parent_ip).
 * After SAVE_ARGS, FRAME(%rsp) holds site + 5 and FRAME+8(%rsp) the parent.
 */
	.globl	utrace_func_caller
	.hidden	utrace_func_caller
	.type	utrace_func_caller, @function
utrace_func_caller:
	.cfi_startproc
	SAVE_ARGS
	mov	FRAME(%rsp), %rdi
	sub	$5, %rdi		/* ip: the site (the function's entry) */
	mov	FRAME+8(%rsp), %rsi	/* parent_ip */
	call	ut_function_entry
	RESTORE_ARGS
	ret
	.cfi_endproc
	.size	utrace_func_caller, .-utrace_func_caller

	.section .note.GNU-stack,"",@progbits
