// SPDX-License-Identifier: MIT
/*
 * The cycle counter for code outside the runtime (common/clock.h:
 * ut_tsc_now): the tools and common/ read it through this plain function so
 * that only arch/ and libutrace/ include arch.h.  The runtime's hot path
 * keeps the inline ut_arch_cycles().
 */
#include "arch.h"
#include "common/clock.h"

uint64_t ut_tsc_now(void)
{
	return ut_arch_cycles();
}
