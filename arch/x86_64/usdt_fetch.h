/* SPDX-License-Identifier: MIT */
/*
 * x86-64: the USDT argument fetcher's core (usdt_fetch.c), inline for the
 * jump's fast path (libutrace/tracers/usdt.c).  No vector registers, no
 * library calls: the program's registers are live where it runs.
 */
#ifndef UT_X86_USDT_FETCH_H
#define UT_X86_USDT_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "arch.h"
#include "common/usdt.h"

/* The low @size bytes of @v, sign-extended if @is_signed. */
static inline uint64_t ut_usdt_extend(uint64_t v, unsigned size, bool is_signed)
{
	unsigned bits = size * 8;

	if (bits >= 64)
		return v;
	v &= (1ULL << bits) - 1;
	if (is_signed && (v >> (bits - 1)) & 1)
		v |= ~0ULL << bits;
	return v;
}

typedef uint16_t __attribute__((may_alias, aligned(1))) ut_u16u;
typedef uint32_t __attribute__((may_alias, aligned(1))) ut_u32u;
typedef uint64_t __attribute__((may_alias, aligned(1))) ut_u64u;

/* @size bytes at @addr, as the program would load them (no memcpy: a library call). */
static inline uint64_t ut_usdt_load(uint64_t addr, unsigned size)
{
	switch (size) {
	case 1:
		return *(const volatile uint8_t *)addr;
	case 2:
		return *(const volatile ut_u16u *)addr;
	case 4:
		return *(const volatile ut_u32u *)addr;
	default:
		return *(const volatile ut_u64u *)addr;
	}
}

/* ut_arch_usdt_fetch_regs (arch.h), for the jump's fast path to inline. */
static inline uint64_t ut_arch_usdt_fetch_inline(const uint64_t *regs, const struct ut_usdt_arg *a,
						 uint64_t bias)
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
		v = (a->reg < UT_ARCH_USDT_NREGS ? regs[a->reg] : 0) >> a->reg_shift;
		if (a->reg_size < size)
			v = ut_usdt_extend(v, a->reg_size, a->is_signed);
		break;
	case UT_USDT_MEM:
		addr = (uint64_t)a->val;
		if (a->reg < UT_ARCH_USDT_NREGS)
			addr += regs[a->reg];
		if (a->index < UT_ARCH_USDT_NREGS)
			addr += regs[a->index] * a->scale;
		v = ut_usdt_load(addr, size);
		break;
	case UT_USDT_STATIC:
		v = ut_usdt_load((uint64_t)a->val + bias, size);
		break;
	}
	return ut_usdt_extend(v, size, a->is_signed);
}

#endif
