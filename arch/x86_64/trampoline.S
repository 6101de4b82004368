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
#include "tramp_macros.inc"

	.text

/*
 * The fast paths below (utrace_func_caller, utrace_graph_caller,
 * utrace_graph_return) do the common case in assembly, calling nothing:
 * the default configuration (FAST_GATE: no function command, instance,
 * graph filter, depth limit or threshold, the local clock, the thread still
 * wanted by set_ftrace_pid; tracing on), the thread not inside the tracer already, room
 * in the ring's page and a time delta that fits.  They keep the registers
 * they use in the red zone below %rsp (nothing of the traced program lives
 * there: the traced function has not started, or has returned; the kernel
 * skips it for signal frames), so %rsp and the unwind info do not change.
 * Anything else falls through to the C paths with nothing changed.  They
 * write what ut_rec_reserve()/ut_rec_commit() and the tracers' C paths
 * would; hot_layout.h has the offsets (checked by
 * libutrace/tracers/hot_layout.c).  They take the guard (ut_thread.busy)
 * before they look at the ring, like the C paths, so a signal's events
 * cannot slip in between.
 */

#define FRAME 80	/* 9 saved registers + 8 bytes to keep 16-byte alignment
			 * (arch.h: ut_arch_entry_arg0 knows where rdi is) */

.macro SAVE_ARGS
	sub	$FRAME, %rsp
	.cfi_adjust_cfa_offset FRAME
	STORE_ARGS
.endm

/* The argument registers into the FRAME bytes at %rsp (SAVE_ARGS without the CFI). */
.macro STORE_ARGS
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
	LOAD_ARGS
	add	$FRAME, %rsp
	.cfi_adjust_cfa_offset -FRAME
.endm

.macro LOAD_ARGS
	mov	0(%rsp), %rdi
	mov	8(%rsp), %rsi
	mov	16(%rsp), %rdx
	mov	24(%rsp), %rcx
	mov	32(%rsp), %r8
	mov	40(%rsp), %r9
	mov	48(%rsp), %rax
	mov	56(%rsp), %r10
	mov	64(%rsp), %r11
.endm

/*
 * utrace_func_caller - the function tracer's entry: records (ip, parent_ip).
 * The fast path writes the FUNCTION record (tracers/function.c writes the
 * same); anything else goes to ut_function_entry() with every argument
 * register saved (SAVE_ARGS: FRAME(%rsp) then holds site + 5 and
 * FRAME+8(%rsp) the parent).  0(%rsp) is site + 5, 8(%rsp) the parent.
 */
	.globl	utrace_func_caller
	.hidden	utrace_func_caller
	.type	utrace_func_caller, @function
utrace_func_caller:
	.cfi_startproc
	RED_SAVE5
	FUNC_RECORD (%rsp), 5, 8(%rsp), .Lf_done, .Lf_slow, .Lf_slow_busy
.Lf_done:
	RED_LOAD5
	ret
.Lf_slow_busy:
	movl	$0, %fs:T_BUSY(%rcx)
.Lf_slow:
	RED_LOAD5
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
 * utrace_inl_caller - an inlined instance's site (libutrace/inlined.c), for
 * every tracer.  The site is in the instance's slot, in the middle of the
 * function that holds it: every register and the flags are live, and the
 * slot stepped 128 bytes below the red zone before calling.  So: the flags
 * and every caller-saved register saved, the stack aligned by hand, and
 * ut_inlined_hit(site, sp) told the site (return - 5) and the function's
 * own %rsp at the instance (above the return address and the 128 bytes).
 */
	.globl	utrace_inl_caller
	.hidden	utrace_inl_caller
	.type	utrace_inl_caller, @function
utrace_inl_caller:
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
	push	%rbp
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %rbp, 0
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	and	$-16, %rsp
	sub	$FRAME, %rsp
	STORE_ARGS
	mov	16(%rbp), %rdi			/* the site's return: site + 5 */
	sub	$5, %rdi
	lea	24+128(%rbp), %rsi		/* the function's %rsp at the instance */
	call	ut_inlined_hit
	LOAD_ARGS
	mov	%rbp, %rsp
	.cfi_def_cfa_register %rsp
	pop	%rbp
	.cfi_adjust_cfa_offset -8
	.cfi_restore %rbp
	popfq
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size	utrace_inl_caller, .-utrace_inl_caller

/* utrace_graph_return's fast path: the 7 registers it uses, back from the red zone. */
.macro RET_RESTORE7
	mov	-16(%rsp), %rax
	mov	-24(%rsp), %rdx
	mov	-32(%rsp), %rcx
	mov	-40(%rsp), %rsi
	mov	-48(%rsp), %rdi
	mov	-64(%rsp), %r9
	mov	-72(%rsp), %r10
.endm

/* Its slow path: every caller-saved register (it saved r8 and r11 too). */
.macro RET_RESTORE
	RET_RESTORE7
	mov	-56(%rsp), %r8
	mov	-80(%rsp), %r11
.endm

/*
 * utrace_graph_caller - function_graph entry.  The fast path (GRAPH_ENTER:
 * the common case of ut_graph_entry() in tracers/function_graph.c) pushes a
 * shadow frame, then writes the GRAPH_ENTRY record or, for the profiler,
 * counts the hit in the thread's table where ut_prof_home() says the
 * function is; and hooks the return: 8(%rsp) is the slot of the traced
 * function's return address, which becomes utrace_graph_return.  A frame
 * written above the top is not pushed until top is raised, so a check that
 * fails after it sends the call to ut_graph_entry(ip, slot) all the same,
 * with every argument register saved.
 */
	.globl	utrace_graph_caller
	.hidden	utrace_graph_caller
	.type	utrace_graph_caller, @function
utrace_graph_caller:
	.cfi_startproc
	RED_SAVE7
	GRAPH_ENTER 8(%rsp), (%rsp), 5, .Lg_done, .Lg_slow, .Lg_slow_busy
.Lg_done:
	RED_LOAD7
	ret
.Lg_slow_busy:
	movl	$0, %fs:T_BUSY(%rcx)
.Lg_slow:
	RED_LOAD7
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
	/*
	 * the fast path: the common return of a frame the fast entry pushed.
	 * Every caller-saved register is kept, not only the return value's:
	 * a plain -O2 caller (a patched prologue's) may keep values in them
	 * across a call to a function gcc's -fipa-ra saw not clobber them.
	 */
	mov	%rax, -16(%rsp)			/* -8(%rsp), the slot, stays as it is */
	mov	%rdx, -24(%rsp)
	mov	%rcx, -32(%rsp)
	mov	%rsi, -40(%rsp)
	mov	%rdi, -48(%rsp)
	mov	%r9, -64(%rsp)			/* (r8 and r11: .Lr_slow saves them) */
	mov	%r10, -72(%rsp)
	mov	ut_self@gottpoff(%rip), %rcx
	mov	%fs:T_SHADOW(%rcx), %rsi
	test	%rsi, %rsi
	jz	.Lr_slow
	cmpl	$0, %fs:T_BUSY(%rcx)
	jne	.Lr_slow
	movl	$1, %fs:T_BUSY(%rcx)
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax			/* ts */
	FAST_GATE RT_FAST_RET_GEN, %edi, %rdi, .Lr_slow_busy, .Lr_slow_busy
	mov	SH_TOP(%rsi), %edx
	test	%edx, %edx
	jz	.Lr_slow_busy
	shl	$6, %rdx			/* F_SIZE: 64 (hot_layout.c) */
	lea	SH_F-F_SIZE(%rsi,%rdx), %rdx	/* the top frame */
	lea	-8(%rsp), %rdi
	cmp	%rdi, F_SLOT(%rdx)
	jne	.Lr_slow_busy			/* not the top frame's return */
	cmpl	$0, F_FLAGS(%rdx)
	jne	.Lr_slow_busy			/* a filter's or a signal handler's */
	mov	F_RET(%rdx), %rdi
	mov	%rdi, -88(%rsp)			/* where to go */
	lea	utrace_graph_return(%rip), %r9
	cmp	%r9, %rdi
	je	.Lr_slow_busy			/* a tail call's */
	cmpb	$0, ut_rt+RT_PROFILE(%rip)
	jne	.Lr_prof			/* (else function_graph: the gate says so) */
	mov	%fs:T_HEAD(%rcx), %r9
	lea	REC_EXIT_SIZE(%r9), %rdi
	cmp	%fs:T_LIMIT(%rcx), %rdi
	ja	.Lr_slow_busy			/* a page to open */
	mov	%rax, %r10
	sub	%fs:T_LAST_TS(%rcx), %r10
	cmp	$REC_DELTA_MAX, %r10
	ja	.Lr_slow_busy			/* a delta too large */
	/*
	 * A leaf's exit, its GRAPH_ENTRY the last record (the head where the
	 * entry left it, the last time its call time) and its return value
	 * 32 bits extended: GRAPH_RET, 16 bytes, its duration its delta.
	 */
	cmp	%r9, F_ENTRY_END(%rdx)
	jne	.Lr_long
	mov	F_CALLTIME(%rdx), %rdi
	cmp	%rdi, %fs:T_LAST_TS(%rcx)
	jne	.Lr_long
	cmpq	$0, SH_OVERRUN(%rsi)
	jne	.Lr_long
	mov	F_DEPTH(%rdx), %edi
	cmp	$0x8000, %edi
	jae	.Lr_long
	shl	$48, %r10			/* word 1: delta, retval, sext, depth */
	or	%rdi, %r10
	mov	-16(%rsp), %edi			/* the return value's low half, */
	shl	$16, %rdi
	or	%rdi, %r10
	cmpl	$0, -12(%rsp)
	je	1f				/* zero-extended */
	movslq	-16(%rsp), %rdi
	cmp	-16(%rsp), %rdi
	jne	.Lr_long_delta			/* neither */
	or	$0x8000, %r10			/* sign-extended */
1:	mov	%rax, %fs:T_LAST_TS(%rcx)
	REC_AT	%r9, %rdi
	mov	%r10, 8(%rdi)
	EXIT_WORD0 0xb000, %rdi			/* GRAPH_RET */
	COMMIT	%r9, REC_SIZE, %rax
	jmp	.Lr_pop
.Lr_long_delta:
	shr	$48, %r10			/* the delta back */
.Lr_long:
	mov	%rax, %fs:T_LAST_TS(%rcx)
	REC_AT	%r9, %rdi
	sub	F_CALLTIME(%rdx), %rax
	mov	%rax, 16(%rdi)			/* word 2: duration */
	mov	-16(%rsp), %rax
	mov	%rax, 24(%rdi)			/* word 3: the return value */
	shl	$48, %r10			/* word 1: delta, overrun, depth */
	movzwl	SH_OVERRUN(%rsi), %eax
	shl	$32, %rax
	or	%rax, %r10
	mov	F_DEPTH(%rdx), %eax
	or	%rax, %r10
	mov	%r10, 8(%rdi)
	EXIT_WORD0 0x3000, %rdi			/* GRAPH_EXIT */
	COMMIT	%r9, REC_EXIT_SIZE, %rax
.Lr_pop:
	decl	SH_TOP(%rsi)			/* pop */
	movl	$0, %fs:T_BUSY(%rcx)
	RET_RESTORE7
	jmp	*-88(%rsp)
.Lr_prof:					/* the profiler: the call's time and self time */
	cmpb	$0, ut_rt+RT_SLEEP_TIME(%rip)
	je	.Lr_slow_busy			/* CPU time: a system call */
	mov	F_PROF(%rdx), %r9
	test	%r9, %r9
	jz	.Lr_slow_busy			/* not counted at entry */
	sub	F_CALLTIME(%rdx), %rax		/* the call's time */
	cmpl	$1, SH_TOP(%rsi)
	je	1f
	add	%rax, F_CHILD-F_SIZE(%rdx)	/* the caller's time in callees */
1:	mov	%rax, %rdi
	sub	F_CHILD(%rdx), %rdi		/* self: the time outside callees, */
	mov	$0, %r10d
	cmovb	%r10, %rdi			/* or 0 */
	add	%rax, PE_TIME(%r9)
	add	%rdi, PE_SELF(%r9)
	mul	%rax
	add	%rax, PE_TIME_SQ(%r9)
	adc	%rdx, PE_TIME_SQ+8(%r9)
	mov	%rdi, %rax
	mul	%rax
	add	%rax, PE_SELF_SQ(%r9)
	adc	%rdx, PE_SELF_SQ+8(%r9)
	jmp	.Lr_pop
.Lr_slow_busy:
	movl	$0, %fs:T_BUSY(%rcx)
.Lr_slow:
	mov	%r8, -56(%rsp)			/* the two the fast path leaves alone */
	mov	%r11, -80(%rsp)
	sub	$96, %rsp		/* the registers saved below %rsp are in the frame */
	.cfi_adjust_cfa_offset 96
	lea	96(%rsp), %rdi
	mov	80(%rsp), %rsi		/* the return value, for funcgraph-retval */
	call	ut_graph_return
	add	$96, %rsp
	.cfi_adjust_cfa_offset -96
	mov	%rax, -88(%rsp)
	RET_RESTORE
	jmp	*-88(%rsp)
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
