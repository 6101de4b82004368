// SPDX-License-Identifier: MIT
/*
 * x86-64: an enabled USDT probe's arguments, fetched from the thread's
 * registers at the probe following the fetch program common/usdt.c decoded
 * from the note: the registers the kernel saved in the signal context when
 * the thread hit the probe's int3, or those utrace_usdt_tramp saved when
 * it came through the probe's jump (libutrace/usdt.c, usdt_jump.c).
 * Register numbers are arch/x86_64/usdt_args.c's.  Built as a hot file
 * (no vector registers, no library calls): the jump's fast path runs it
 * with the program's vector registers live.
 */
#include "arch.h"
#include "common/usdt.h"
#include "usdt_fetch.h"

/* usdt_args.c's order: rax rbx rcx rdx rsi rdi rbp rsp r8..r15 rip */
static const int greg_of[UT_ARCH_USDT_NREGS] = {
	REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI, REG_RBP, REG_RSP, REG_R8,
	REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP};

int ut_arch_usdt_greg(unsigned r)
{
	return r < UT_ARCH_USDT_NREGS ? greg_of[r] : -1;
}

uint64_t ut_arch_usdt_fetch_regs(const uint64_t *regs, const struct ut_usdt_arg *a, uint64_t bias)
{
	return ut_arch_usdt_fetch_inline(regs, a, bias);
}

uint64_t ut_arch_usdt_fetch(const ucontext_t *uc, const struct ut_usdt_arg *a, uint64_t bias)
{
	uint64_t regs[UT_ARCH_USDT_NREGS];

	for (unsigned r = 0; r < UT_ARCH_USDT_NREGS; r++)
		regs[r] = (uint64_t)uc->uc_mcontext.gregs[greg_of[r]];
	return ut_arch_usdt_fetch_regs(regs, a, bias);
}

/*
 *   48 8d 64 24 80              lea -128(%rsp),%rsp
 *   ff 15 rel32                 call *slot(%rip)
 *   48 8d a4 24 80 00 00 00     lea 128(%rsp),%rsp
 */
void ut_arch_usdt_block(uint8_t *out, uint64_t at, uint64_t slot)
{
	static const uint8_t down[5] = {0x48, 0x8d, 0x64, 0x24, 0x80};
	static const uint8_t up[8] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	int32_t rel = (int32_t)(int64_t)(slot - (at + 11));

	for (unsigned i = 0; i < 5; i++)
		out[i] = down[i];
	out[5] = 0xff;
	out[6] = 0x15;
	for (unsigned i = 0; i < 4; i++)
		out[7 + i] = (uint8_t)((uint32_t)rel >> (8 * i));
	for (unsigned i = 0; i < 8; i++)
		out[11 + i] = up[i];
}
