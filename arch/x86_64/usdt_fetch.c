// SPDX-License-Identifier: MIT
/*
 * x86-64: an enabled USDT probe's arguments, fetched from the registers the
 * kernel saved in the signal context when the thread hit the probe's int3
 * (libutrace/usdt.c), following the fetch program common/usdt.c decoded
 * from the note.  Register numbers are arch/x86_64/usdt_args.c's.
 */
#include <string.h>

#include "arch.h"
#include "common/usdt.h"

/* usdt_args.c's order: rax rbx rcx rdx rsi rdi rbp rsp r8..r15 rip */
static const int greg_of[17] = {REG_RAX, REG_RBX, REG_RCX, REG_RDX, REG_RSI, REG_RDI,
				REG_RBP, REG_RSP, REG_R8,  REG_R9,  REG_R10, REG_R11,
				REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP};

static uint64_t reg(const ucontext_t *uc, unsigned r)
{
	return r < 17 ? (uint64_t)uc->uc_mcontext.gregs[greg_of[r]] : 0;
}

/* The low @size bytes of @v, sign-extended if @is_signed. */
static uint64_t extend(uint64_t v, unsigned size, bool is_signed)
{
	unsigned bits = size * 8;

	if (bits >= 64)
		return v;
	v &= (1ULL << bits) - 1;
	if (is_signed && (v >> (bits - 1)) & 1)
		v |= ~0ULL << bits;
	return v;
}

static uint64_t load(uint64_t addr, unsigned size)
{
	uint64_t v = 0;

	memcpy(&v, (const void *)addr, size); /* little-endian: the low bytes */
	return v;
}

uint64_t ut_arch_usdt_fetch(const ucontext_t *uc, const struct ut_usdt_arg *a, uint64_t bias)
{
	uint64_t v = 0, addr;
	unsigned size = a->size;

	switch (a->loc) {
	case UT_USDT_CONST:
		v = (uint64_t)a->val;
		break;
	case UT_USDT_SYMADDR:
		v = (uint64_t)a->val + bias;
		break;
	case UT_USDT_REG:
		/* %ah is bits 8..15 of %rax; a register narrower than the size is all there is */
		v = reg(uc, a->reg) >> a->reg_shift;
		if (a->reg_size < size)
			v = extend(v, a->reg_size, a->is_signed);
		break;
	case UT_USDT_MEM:
		addr = (uint64_t)a->val;
		if (a->reg != UT_USDT_NO_REG)
			addr += reg(uc, a->reg);
		if (a->index != UT_USDT_NO_REG)
			addr += reg(uc, a->index) * a->scale;
		v = load(addr, size);
		break;
	case UT_USDT_STATIC:
		v = load((uint64_t)a->val + bias, size);
		break;
	}
	return extend(v, size, a->is_signed);
}
