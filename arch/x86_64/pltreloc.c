// SPDX-License-Identifier: MIT
/* x86-64 relocations of the GOT slots calls go through (common/pltsyms.h). */
#include <elf.h>

#include "common/pltsyms.h"

unsigned ut_plt_reloc_kind(uint32_t type)
{
	if (type == R_X86_64_JUMP_SLOT)
		return UT_PLT_JUMP_SLOT; /* a PLT entry's slot: lazy or bound now */
	if (type == R_X86_64_GLOB_DAT)
		return UT_PLT_GLOB_DAT; /* -fno-plt: call *sym@GOTPCREL(%rip), bound at load */
	return 0;
}
