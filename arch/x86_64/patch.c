// SPDX-License-Identifier: MIT
/*
 * x86-64 site encodings.  The portable patcher (libutrace/patch.c) decides
 * what a site should become; this file only knows the bytes it writes
 * (what a site is when found: sitekind.c).
 *
 *   disabled, 5-byte site:  0f 1f 44 00 00          nopl 0x0(%rax,%rax,1)
 *   disabled, 6-byte site:  0f 1f 44 00 00 90       the same + nop
 *   enabled:                e8 <rel32> [90]         call <stub>
 *
 * A 6-byte site (gcc -pg -mfentry with PIC: `call *__fentry__@GOTPCREL(%rip)`)
 * keeps a 1-byte nop at site + 5 in both states, so the address the call
 * returns to is an instruction boundary whatever state the site is in when a
 * thread comes back from the trampoline.
 */
#include <cpuid.h>
#include <stdbool.h>
#include <string.h>
#include <sys/ucontext.h>

#include "arch.h"

static const uint8_t nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

void ut_arch_make_nop(uint8_t *buf, unsigned len)
{
	memcpy(buf, nop5, 5);
	if (len > 5)
		buf[5] = 0x90;
}

void ut_arch_make_call(uint8_t *buf, unsigned len, uint64_t site, uint64_t target)
{
	int32_t rel = (int32_t)(int64_t)(target - (site + 5));

	buf[0] = 0xe8;
	memcpy(buf + 1, &rel, 4);
	if (len > 5)
		buf[5] = 0x90;
}

/* jmp *disp32(%rip) to the slot; then ud2 so nothing falls through. */
void ut_arch_make_stub(uint8_t *code, uint64_t code_addr, uint64_t slot_addr)
{
	int32_t disp = (int32_t)(int64_t)(slot_addr - (code_addr + 6));

	code[0] = 0xff;
	code[1] = 0x25;
	memcpy(code + 2, &disp, 4);
	code[6] = 0x0f;
	code[7] = 0x0b;
}
uint64_t ut_arch_trap_addr(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
}

void ut_arch_set_pc(ucontext_t *uc, uint64_t pc)
{
	uc->uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
}

uint64_t ut_arch_context_sp(const ucontext_t *uc)
{
	return (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
}

uint32_t ut_xsave_size __attribute__((visibility("hidden")));

/* XSAVE area size for the features the OS enabled (CPUID leaf 0xD, EBX). */
void ut_arch_init_fpu(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	__cpuid_count(0xd, 0, a, b, c, d);
	if (b >= 576)
		ut_xsave_size = b + 64; /* room to align the area to 64 bytes */
}
