// SPDX-License-Identifier: MIT
#include <time.h>

#include "common/clock.h"

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Read mono, TSC, mono and keep the try whose two mono readings are closest:
 * its TSC reading is then known to within that gap (tens of ns), whatever
 * preemption or interrupts did to the other tries.
 */
void ut_tsc_pair_read(struct ut_tsc_pair *p)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 16; i++) {
		uint64_t m0 = mono_now(), c = ut_tsc_now(), m1 = mono_now();

		if (m1 - m0 < best) {
			best = m1 - m0;
			p->tsc = c;
			p->mono = m0 + (m1 - m0) / 2;
		}
	}
}

bool ut_tsc_mult(const struct ut_tsc_pair *a, const struct ut_tsc_pair *b, uint32_t *mult,
		 uint32_t *shift)
{
	uint64_t dc = b->tsc - a->tsc, dn = b->mono - a->mono;

	if (b->tsc <= a->tsc || b->mono <= a->mono)
		return false;
	/* ns per cycle in 8.24 fixed point: fits while the TSC runs above ~4 MHz. */
	*shift = 24;
	*mult = (uint32_t)(((unsigned __int128)dn << 24) / dc);
	return *mult != 0;
}

void ut_tsc_calibrate(struct ut_tsc_pair *start, uint64_t spin_ns, uint32_t *mult,
		      uint32_t *shift)
{
	ut_tsc_pair_read(start);
	ut_tsc_calibrate_from(start, spin_ns, mult, shift);
}

void ut_tsc_calibrate_from(const struct ut_tsc_pair *start, uint64_t spin_ns, uint32_t *mult,
			   uint32_t *shift)
{
	struct ut_tsc_pair b;

	do {
		ut_tsc_pair_read(&b);
	} while (b.mono - start->mono < spin_ns);
	if (!ut_tsc_mult(start, &b, mult, shift)) {
		*mult = 1u << 24;
		*shift = 24;
	}
}
