// SPDX-License-Identifier: MIT
/*
 * A return instruction inside a given object, for calls that must look as if
 * they came from that object (libutrace/dlopen.c).
 */
#include <elf.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch.h"

#define ARCH_SHSTK_STATUS 0x5005
#define ARCH_SHSTK_SHSTK 1ul

/* With a shadow stack, a return to an address no call pushed faults. */
bool ut_arch_shadow_stack(void)
{
	unsigned long features = 0;

	return syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features) == 0 &&
	       (features & ARCH_SHSTK_SHSTK);
}

void *ut_arch_object_ret(const void *dyn, uint64_t bias)
{
	static const uint8_t epilogue[] = {0x48, 0x83, 0xc4, 0x08, 0xc3}; /* add $8,%rsp; ret */
	const ElfW(Dyn) *d = dyn;
	const uint8_t *fini = NULL;

	for (; d && d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_FINI)
			fini = (const uint8_t *)(bias + d->d_un.d_ptr);
	if (!fini || ut_arch_shadow_stack())
		return NULL;
	/* _fini: [endbr64] sub $8,%rsp; [call of nothing]; add $8,%rsp; ret */
	for (size_t i = 0; i <= 8; i += 4) /* endbr64 and sub are 4 bytes each */
		if (!memcmp(fini + i, epilogue, sizeof(epilogue)))
			return (void *)(fini + i + sizeof(epilogue) - 1);
	return NULL;
}
