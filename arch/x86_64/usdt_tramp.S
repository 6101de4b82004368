/* SPDX-License-Identifier: MIT */
/*
 * utrace_usdt_tramp - a USDT probe enabled with a jump (arch.h, "USDT
 * probes enabled with a jump"; libutrace/usdt_jump.c).
 *
 * The probe is in the middle of a function: every register, the flags,
 * the vector registers and the red zone are live.  The slot stepped 128
 * bytes below the red zone and called here through its first word; on
 * entry 0(%rsp) is the return into the slot's call block.  The general
 * registers and the flags go into a frame in the order the argument
 * fetcher reads (rax rbx rcx rdx rsi rdi rbp rsp r8..r15 rip, flags),
 * with %rsp as it was at the probe, so that %rsp-relative arguments keep
 * their meaning.  The common case (ut_usdt_jump_hit, built without vector
 * registers) touches nothing else; when it answers that the hit needs the
 * C library (a filter, a string, a trigger), every vector register is
 * saved with xsave first, then ut_usdt_jump_slow runs.
 */
#define FRAME_RSP	56	/* the parser's register 7 */
#define FRAME_RET	144	/* 17 registers + flags, then our return address */
#define PROBE_RSP	(FRAME_RET + 8 + 128)
#define DATA_BACK	(80 + 11 - 8)	/* return - slot data: UT_ARCH_USDT_CALL + 11 - 8 */

	.text
	.globl	utrace_usdt_tramp
	.hidden	utrace_usdt_tramp
	.type	utrace_usdt_tramp, @function
utrace_usdt_tramp:
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
	sub	$8, %rsp			/* rip: filled by the C side if asked */
	.cfi_adjust_cfa_offset 8
	push	%r15
	push	%r14
	push	%r13
	push	%r12
	push	%r11
	push	%r10
	push	%r9
	push	%r8
	sub	$8, %rsp			/* rsp, below */
	push	%rbp
	push	%rdi
	push	%rsi
	push	%rdx
	push	%rcx
	push	%rbx
	.cfi_adjust_cfa_offset 120
	.cfi_rel_offset %rbx, 0
	push	%rax
	.cfi_adjust_cfa_offset 8
	lea	PROBE_RSP(%rsp), %rax
	mov	%rax, FRAME_RSP(%rsp)
	mov	FRAME_RET(%rsp), %rax
	mov	-DATA_BACK(%rax), %rdi		/* the probe's data, slot + 8 */
	mov	%rsp, %rsi
	mov	%rsp, %rbx
	.cfi_def_cfa_register %rbx
	and	$-16, %rsp
	call	ut_usdt_jump_hit
	test	%eax, %eax
	jnz	.Lslow
.Lback:
	.cfi_remember_state
	mov	%rbx, %rsp
	.cfi_def_cfa_register %rsp
	pop	%rax
	pop	%rbx
	pop	%rcx
	pop	%rdx
	pop	%rsi
	pop	%rdi
	pop	%rbp
	add	$8, %rsp
	pop	%r8
	pop	%r9
	pop	%r10
	pop	%r11
	pop	%r12
	pop	%r13
	pop	%r14
	pop	%r15
	add	$8, %rsp
	.cfi_adjust_cfa_offset -136
	popfq
	.cfi_adjust_cfa_offset -8
	ret
.Lslow:
	.cfi_restore_state
	mov	ut_usdt_xsave_size(%rip), %ecx	/* the xsave area's size, XCR0's features */
	sub	%rcx, %rsp
	and	$-64, %rsp
	xor	%eax, %eax			/* the area's header must start zeroed */
	mov	%rax, 512(%rsp)
	mov	%rax, 520(%rsp)
	mov	%rax, 528(%rsp)
	mov	%rax, 536(%rsp)
	mov	%rax, 544(%rsp)
	mov	%rax, 552(%rsp)
	mov	%rax, 560(%rsp)
	mov	%rax, 568(%rsp)
	mov	$-1, %eax
	mov	$-1, %edx
	xsave64	(%rsp)
	mov	FRAME_RET(%rbx), %rax
	mov	-DATA_BACK(%rax), %rdi
	mov	%rbx, %rsi
	call	ut_usdt_jump_slow
	mov	$-1, %eax
	mov	$-1, %edx
	xrstor64 (%rsp)
	jmp	.Lback
	.cfi_endproc
	.size	utrace_usdt_tramp, .-utrace_usdt_tramp

	.section .note.GNU-stack,"",@progbits
