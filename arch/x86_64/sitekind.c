// SPDX-License-Identifier: MIT
/*
 * x86-64 site encodings as the site finder (common/sitefind.c) reads them,
 * in the runtime and in the tools alike: what the compiler left at a
 * function's entry, and the calls and PLT stubs that lead to __fentry__.
 * The patcher's side (the forms a site is written to) is in patch.c.
 */
#include <stdbool.h>
#include <string.h>

#include "arch.h"
#include "common/sitefind.h"

static int32_t rel32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

static bool same(const uint8_t *a, const uint8_t *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

unsigned ut_arch_entry_offset(const uint8_t *code)
{
	static const uint8_t endbr64[4] = {0xf3, 0x0f, 0x1e, 0xfa};

	return same(code, endbr64, 4) ? 4 : 0;
}

enum ut_site_kind ut_arch_site_kind(const uint8_t *code, uint64_t addr, uint64_t fentry,
				    uint64_t plt, uint64_t got, unsigned *len)
{
	static const uint8_t nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	static const uint8_t nop1x5[5] = {0x90, 0x90, 0x90, 0x90, 0x90};

	if (same(code, nop5, 5) && code[5] == 0x90 && got) {
		*len = 6;
		return UT_SITE_NOP5_NOP1;
	}
	if (same(code, nop5, 4)) { /* 0f 1f 44 00 xx: any displacement */
		*len = 5;
		return UT_SITE_NOP5;
	}
	if (same(code, nop1x5, 5)) {
		*len = 5;
		return UT_SITE_NOP1X5;
	}
	if (code[0] == 0xe8) {
		uint64_t target = addr + 5 + (int64_t)rel32(code + 1);

		if ((fentry && target == fentry) || (plt && target == plt)) {
			*len = 5;
			return UT_SITE_CALL5;
		}
	}
	if (code[0] == 0xff && code[1] == 0x15 && got) {
		uint64_t slot = addr + 6 + (int64_t)rel32(code + 2);

		if (slot == got) {
			*len = 6;
			return UT_SITE_CALL6;
		}
	}
	return UT_SITE_NONE;
}

unsigned ut_site_max(void)
{
	return UT_ARCH_SITE_MAX;
}

unsigned ut_site_entry_offset(const uint8_t *code)
{
	return ut_arch_entry_offset(code);
}

unsigned ut_site_length(const uint8_t *code, uint64_t addr, uint64_t fentry, uint64_t plt,
			uint64_t got)
{
	unsigned len = 0;

	return ut_arch_site_kind(code, addr, fentry, plt, got, &len) != UT_SITE_NONE ? len : 0;
}

bool ut_site_call_target(const uint8_t *code, uint64_t addr, uint64_t *target)
{
	if (code[0] != 0xe8)
		return false;
	*target = addr + 5 + (int64_t)rel32(code + 1);
	return true;
}

/* A PLT stub: [endbr64] [bnd] jmp *disp32(%rip). */
uint64_t ut_site_plt_slot(const uint8_t *code, uint64_t addr)
{
	unsigned off = ut_arch_entry_offset(code);

	if (code[off] == 0xf2)
		off++; /* bnd prefix */
	if (code[off] == 0xff && code[off + 1] == 0x25)
		return addr + off + 6 + (int64_t)rel32(code + off + 2);
	return 0;
}
