// SPDX-License-Identifier: MIT
/*
 * x86-64 library-call stubs (libutrace/plthook.c decides which GOT slot
 * points where; this file knows the bytes).  One stub per traced library
 * function, in an executable page of the runtime's own:
 *
 *   f3 0f 1e fa              endbr64      (a GOT call is an indirect branch)
 *   49 bb <hook:8>           movabs $hook, %r11
 *   ff 25 00 00 00 00        jmp *0(%rip)
 *   <utrace_plt_entry:8>
 *
 * Absolute addresses only: the stub may lie anywhere, since GOT slots hold
 * 64-bit addresses.  Also here: what a slot still waiting for lazy binding
 * points at, a PLT entry's `push $index` (after an endbr64 with IBT PLTs).
 */
#include <stdbool.h>
#include <string.h>

#include "arch.h"

void ut_arch_make_plt_stub(uint8_t *code, uint64_t hook, uint64_t entry)
{
	static const uint8_t endbr[4] = {0xf3, 0x0f, 0x1e, 0xfa};
	static const uint8_t jmp[6] = {0xff, 0x25, 0, 0, 0, 0};

	memset(code, 0xcc, UT_ARCH_PLT_STUB_SIZE);
	memcpy(code, endbr, 4);
	code[4] = 0x49;
	code[5] = 0xbb;
	memcpy(code + 6, &hook, 8);
	memcpy(code + 14, jmp, 6);
	memcpy(code + 20, &entry, 8);
}

bool ut_arch_plt_lazy_entry(const uint8_t *code)
{
	static const uint8_t endbr[4] = {0xf3, 0x0f, 0x1e, 0xfa};

	if (!memcmp(code, endbr, 4))
		code += 4;
	return code[0] == 0x68; /* push $index, then jmp to PLT0 and the resolver */
}
