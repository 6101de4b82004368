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
 * registers) touches nothing else, and the callee-saved registers are
 * not reloaded but %rbx, which this code uses; when it answers that the hit needs the
 * C library (a filter, a string, a trigger), every vector register is
 * saved with xsavec (xsave without it) first, then ut_usdt_jump_slow
 * runs.  Not xsaveopt: it may skip a component it believes the area
 * still holds, and this area is on the stack, rewritten between hits.
 */
#define FRAME_RSP	56	/* the parser's register 7 */
#define FRAME_RIP	128
#define FRAME_FLAGS	136	/* after the 17 registers */
#define FRAME_RET	144	/* then our return address */
#define PROBE_RSP	(FRAME_RET + 8 + 128)
#define DATA_BACK	(80 + 11 - 8)	/* return - slot data: UT_ARCH_USDT_CALL + 11 - 8 */

	.text
	.globl	utrace_usdt_tramp
	.hidden	utrace_usdt_tramp
	.type	utrace_usdt_tramp, @function
utrace_usdt_tramp:
	.cfi_startproc
	lea	-16(%rsp), %rsp			/* flags, rip (filled by the C side if asked) */
	.cfi_adjust_cfa_offset 16
	push	%r15
	push	%r14
	push	%r13
	push	%r12
	push	%r11
	push	%r10
	push	%r9
	push	%r8
	lea	-8(%rsp), %rsp			/* rsp, below */
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
	/*
	 * The flags a compiler's code may hold live: SF ZF AF PF CF (lahf)
	 * and OF (seto); popfq would cost more than the rest of the hit.
	 */
	lahf
	seto	%al
	mov	%rax, FRAME_FLAGS(%rsp)
	lea	PROBE_RSP(%rsp), %rax
	mov	%rax, FRAME_RSP(%rsp)
	mov	FRAME_RET(%rsp), %rax
	mov	-DATA_BACK(%rax), %rdi		/* the probe's data, slot + 8 */
	mov	%rsp, %rsi
	mov	%rsp, %rbx
	/*
	 * Unwinders (a stacktrace trigger's backtrace()) see the probed
	 * function as this code's caller, stopped after the nop as under the
	 * int3: its %rsp, rip (the frame's, which the C side fills before it
	 * may unwind) and callee-saved registers from the frame.
	 */
	.cfi_def_cfa %rbx, PROBE_RSP
	.cfi_offset 16, FRAME_RIP - PROBE_RSP
	.cfi_offset %rbx, 8 - PROBE_RSP
	.cfi_offset %rbp, 48 - PROBE_RSP
	.cfi_offset %r12, 96 - PROBE_RSP
	.cfi_offset %r13, 104 - PROBE_RSP
	.cfi_offset %r14, 112 - PROBE_RSP
	.cfi_offset %r15, 120 - PROBE_RSP
	and	$-16, %rsp
	call	ut_usdt_jump_hit
	test	%eax, %eax
	jnz	.Lslow
.Lback:
	.cfi_remember_state
	mov	%rbx, %rsp
	.cfi_def_cfa %rsp, PROBE_RSP
	mov	FRAME_FLAGS(%rsp), %rax
	add	$0x7f, %al			/* OF back: 1 + 0x7f overflows */
	sahf
	/* from here on nothing may touch the flags: mov and lea only */
	mov	0(%rsp), %rax
	mov	16(%rsp), %rcx
	mov	24(%rsp), %rdx
	mov	32(%rsp), %rsi
	mov	40(%rsp), %rdi
	mov	64(%rsp), %r8
	mov	72(%rsp), %r9
	mov	80(%rsp), %r10
	mov	88(%rsp), %r11
	mov	8(%rsp), %rbx			/* the callee-saved ones the C side kept */
	lea	FRAME_RET(%rsp), %rsp
	.cfi_def_cfa %rsp, 8			/* a plain call's, into the slot */
	.cfi_offset 16, -8
	.cfi_same_value %rbx
	.cfi_same_value %rbp
	.cfi_same_value %r12
	.cfi_same_value %r13
	.cfi_same_value %r14
	.cfi_same_value %r15
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
	cmpb	$0, ut_usdt_xsavec(%rip)
	je	1f
	xsavec64 (%rsp)				/* only the components in use: AVX-512's are rarely */
	jmp	2f
1:	xsave64	(%rsp)
2:
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
