// SPDX-License-Identifier: MIT
/*
 * x86-64: what utrace_usdt_tramp (usdt_tramp.S) needs of the processor,
 * and the signal context its slow path hands to the int3's code
 * (libutrace/usdt_jump.c).
 */
#include <cpuid.h>
#include <string.h>

#include "arch.h"

/* The xsave area's size for the features the kernel enabled, and whether xsavec is there (usdt_tramp.S). */
uint32_t ut_usdt_xsave_size;
uint8_t ut_usdt_xsavec;

bool ut_arch_usdt_jump_ok(void)
{
	unsigned a, b, c, d, size;

	if (ut_usdt_xsave_size)
		return true;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return false;
	/* the trampoline keeps the flags with lahf/sahf: early x86-64 lacked them */
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d) || !(c & bit_LAHF_LM))
		return false;
	__cpuid_count(0xd, 0, a, b, c, d);
	size = b; /* the area for the features XCR0 enables */
	if (!size)
		return false;
	__cpuid_count(0xd, 1, a, b, c, d);
	ut_usdt_xsavec = (a >> 1) & 1;
	ut_usdt_xsave_size = size + 64; /* + room to align it */
	return true;
}

void ut_arch_usdt_context(const uint64_t *frame, uint64_t pc, ucontext_t *uc)
{
	uint64_t flags = frame[UT_ARCH_USDT_NREGS];

	memset(uc, 0, sizeof(*uc));
	for (unsigned r = 0; r < UT_ARCH_USDT_NREGS; r++)
		uc->uc_mcontext.gregs[ut_arch_usdt_greg(r)] = (greg_t)frame[r];
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
	/* lahf's SF ZF AF PF CF (bits 8..15 of the word), seto's OF (bit 0) */
	uc->uc_mcontext.gregs[REG_EFL] = (greg_t)(((flags >> 8) & 0xd5) | (flags & 1) << 11 | 2);
}
