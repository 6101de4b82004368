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

#define FRAME 80	/* 9 saved registers + 8 bytes to keep 16-byte alignment
			 * (arch.h: ut_arch_entry_arg0 knows where rdi is) */

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
 * The function tracer's entry tries its fast path first: a C function built with
 * no_caller_saved_registers (it saves what it uses itself), which needs only
 * rdi and rsi for its arguments and rax for its answer saved here.  It
 * answers nonzero if it did everything; zero sends the call to the full C
 * entry with every argument register saved (SAVE_ARGS), the frame
 * ut_arch_entry_arg0 knows.  Three slots keep %rsp 8 mod 16 at the call
 * instruction's target, as the ABI has it.
 */
#define FAST 24

.macro FAST_SAVE
	sub	$FAST, %rsp
	.cfi_adjust_cfa_offset FAST
	mov	%rdi, 0(%rsp)
	mov	%rsi, 8(%rsp)
	mov	%rax, 16(%rsp)
.endm

.macro FAST_RESTORE
	mov	0(%rsp), %rdi
	mov	8(%rsp), %rsi
	mov	16(%rsp), %rax
	add	$FAST, %rsp
	.cfi_adjust_cfa_offset -FAST
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
	FAST_SAVE
	mov	FAST(%rsp), %rdi
	sub	$5, %rdi		/* ip: the site (the function's entry) */
	mov	FAST+8(%rsp), %rsi	/* parent_ip */
	call	ut_function_fast
	test	%eax, %eax
	jz	1f
	FAST_RESTORE
	ret
1:	.cfi_adjust_cfa_offset FAST
	FAST_RESTORE
	SAVE_ARGS
	mov	FRAME(%rsp), %rdi
	sub	$5, %rdi
	mov	FRAME+8(%rsp), %rsi
	call	ut_function_entry
	RESTORE_ARGS
	ret
	.cfi_endproc
	.size	utrace_func_caller, .-utrace_func_caller

/*
 * utrace_graph_caller - function_graph entry.  ut_graph_entry(ip, slot) gets
 * the address of the traced function's return address (FRAME+8(%rsp)) and
 * may replace it with utrace_graph_return, saving the real one on the
 * thread's shadow stack.  Not the fast/slow split of the function tracer:
 * the graph's fast path needs most registers anyway (saving them itself
 * cost more instructions than SAVE_ARGS).
 */
	.globl	utrace_graph_caller
	.hidden	utrace_graph_caller
	.type	utrace_graph_caller, @function
utrace_graph_caller:
	.cfi_startproc
	SAVE_ARGS
	mov	FRAME(%rsp), %rdi
	sub	$5, %rdi		/* ip */
	lea	FRAME+8(%rsp), %rsi	/* where the return address lives */
	call	ut_graph_entry
	RESTORE_ARGS
	ret
	.cfi_endproc
	.size	utrace_graph_caller, .-utrace_graph_caller

/*
 * utrace_graph_return - where a hooked function returns to.  %rsp is just
 * above the slot that held its return address; rax and rdx hold its return
 * value (xmm0/xmm1 and st0 are untouched: the C side uses no vector or x87
 * registers).  ut_graph_return(sp) pops the shadow frame, records the exit
 * and gives back the real return address, which we jump to.
 *
 * A jump, not a `ret`: the hooked function's own `ret` already consumed the
 * return-stack-buffer entry its call made (mispredicted: it came here); a
 * second `ret` would consume its caller's, and every return above would be
 * mispredicted too.  r11 is free: no caller expects it kept across a call.
 *
 *     0(%rsp) rax   8(%rsp) rdx   16(%rsp) pad   24(%rsp) pad
 *
 * Unwinding: an unwinder meets utrace_graph_return as the return address of
 * a hooked frame when nobody put the real one back first (glibc's
 * pthread_exit and pthread_cancel call the unwinder directly).  The unwind
 * info then says: this "frame" has the personality ut_graph_personality,
 * which puts the real return addresses back (libutrace/unwind.c), and its
 * caller's address is what the slot below the CFA holds now -- unless the
 * slot still holds utrace_graph_return (a walker that calls no personality,
 * such as _Unwind_Backtrace), recognised by the 8 bytes before it, GRAPH_MAGIC:
 * then the return address is 0, the end of the stack.  The magic also puts
 * (return address - 1), where unwinders look, inside this function's FDE.
 *
 *   rip = v * ([v - 8] != GRAPH_MAGIC), v = [CFA - 8], CFA = %rsp on entry
 */
#define GRAPH_MAGIC 0xd1c3a7e5f0b29e4d
	.globl	utrace_graph_return
	.hidden	utrace_graph_return
	.type	utrace_graph_return, @function
	.cfi_startproc
	.cfi_personality 0x1b, ut_graph_personality
	.cfi_def_cfa rsp, 0
	/* DW_CFA_val_expression rip, 18 bytes: lit8 minus deref dup lit8 minus
	 * deref const8u GRAPH_MAGIC ne mul */
	.cfi_escape 0x16, 0x10, 0x12, 0x38, 0x1c, 0x06, 0x12, 0x38, 0x1c, 0x06, 0x0e, \
		0x4d, 0x9e, 0xb2, 0xf0, 0xe5, 0xa7, 0xc3, 0xd1, 0x2e, 0x1e
	.quad	GRAPH_MAGIC		/* never executed */
utrace_graph_return:
	sub	$32, %rsp
	.cfi_adjust_cfa_offset 32
	mov	%rax, 0(%rsp)
	mov	%rdx, 8(%rsp)
	lea	32(%rsp), %rdi
	mov	%rax, %rsi		/* the return value, for funcgraph-retval */
	call	ut_graph_return
	mov	%rax, %r11
	mov	0(%rsp), %rax
	mov	8(%rsp), %rdx
	add	$32, %rsp
	.cfi_adjust_cfa_offset -32
	jmp	*%r11
	.cfi_endproc
	.size	utrace_graph_return, .-utrace_graph_return

/*
 * makecontext - interposes glibc's (exported: default visibility).  The new
 * context's stack must get a shadow stack of its own (libutrace/stacks.c),
 * so ut_context_made(ucp) records it and returns the real makecontext, which
 * we jump to with every argument register and the stack as they came: the
 * function is variadic, a C wrapper could not pass its arguments on.
 * Seven pushes leave %rsp 16-byte aligned for the call.
 */
	.globl	makecontext
	.type	makecontext, @function
makecontext:
	.cfi_startproc
	push	%rdi
	.cfi_adjust_cfa_offset 8
	push	%rsi
	.cfi_adjust_cfa_offset 8
	push	%rdx
	.cfi_adjust_cfa_offset 8
	push	%rcx
	.cfi_adjust_cfa_offset 8
	push	%r8
	.cfi_adjust_cfa_offset 8
	push	%r9
	.cfi_adjust_cfa_offset 8
	push	%rax
	.cfi_adjust_cfa_offset 8
	call	ut_context_made
	mov	%rax, %r11
	pop	%rax
	.cfi_adjust_cfa_offset -8
	pop	%r9
	.cfi_adjust_cfa_offset -8
	pop	%r8
	.cfi_adjust_cfa_offset -8
	pop	%rcx
	.cfi_adjust_cfa_offset -8
	pop	%rdx
	.cfi_adjust_cfa_offset -8
	pop	%rsi
	.cfi_adjust_cfa_offset -8
	pop	%rdi
	.cfi_adjust_cfa_offset -8
	jmp	*%r11
	.cfi_endproc
	.size	makecontext, .-makecontext

/*
 * ut_arch_call_fpu_safe(fn, arg) - call fn(arg) with the whole extended
 * register state (x87, SSE, AVX, AVX-512: what XCR0 enables) saved around it.
 * The tracers run with the traced function's vector arguments still live and
 * compile without vector registers; code they call that may use them (the
 * unwinder behind a stack trace) goes through here.  ut_xsave_size is the
 * XSAVE area size from CPUID (0: no XSAVE, use FXSAVE's 512 bytes).
 */
	.globl	ut_arch_call_fpu_safe
	.hidden	ut_arch_call_fpu_safe
	.type	ut_arch_call_fpu_safe, @function
ut_arch_call_fpu_safe:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register rbp
	push	%rbx
	push	%r12
	push	%r13
	mov	%rdi, %r12		/* fn */
	mov	%rsi, %r13		/* arg */
	mov	ut_xsave_size(%rip), %ebx
	test	%ebx, %ebx
	jz	1f
	/* XSAVE: a 64-byte aligned area whose 64-byte header starts zeroed */
	sub	%rbx, %rsp
	and	$-64, %rsp
	xor	%eax, %eax
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
	xsave	(%rsp)
	mov	%r13, %rdi
	call	*%r12
	mov	$-1, %eax
	mov	$-1, %edx
	xrstor	(%rsp)
	jmp	2f
1:	sub	$512, %rsp
	and	$-16, %rsp
	fxsave	(%rsp)
	mov	%r13, %rdi
	call	*%r12
	fxrstor	(%rsp)
2:	lea	-24(%rbp), %rsp
	pop	%r13
	pop	%r12
	pop	%rbx
	pop	%rbp
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size	ut_arch_call_fpu_safe, .-ut_arch_call_fpu_safe

/*
 * ut_arch_call_returning_via(fn, ret, a0, a1) - fn(a0, a1), entered with
 * @ret as its return address; @ret must be a `ret` instruction, which then
 * returns here.  Whoever looks at fn's return address (dlopen, to find its
 * caller's search path) sees @ret's object.  No CFI describes @ret, so an
 * unwinder inside fn stops there.
 */
	.globl	ut_arch_call_returning_via
	.hidden	ut_arch_call_returning_via
	.type	ut_arch_call_returning_via, @function
ut_arch_call_returning_via:
	.cfi_startproc
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_offset rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register rbp
	mov	%rdi, %rax		/* fn */
	mov	%rsi, %r11		/* the ret instruction */
	mov	%rdx, %rdi		/* a0 */
	mov	%ecx, %esi		/* a1 */
	sub	$8, %rsp		/* fn is entered with rsp = 8 mod 16 */
	lea	1f(%rip), %rcx
	push	%rcx
	push	%r11
	jmp	*%rax
1:	leave
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc
	.size	ut_arch_call_returning_via, .-ut_arch_call_returning_via

	.section .note.GNU-stack,"",@progbits
