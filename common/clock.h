/* SPDX-License-Identifier: MIT */
/*
 * The local clock's TSC -> nanosecond conversion.  The kernel publishes its
 * own (sched_clock) conversion in the perf mmap page when the TSC is stable;
 * where it does not (this VM: cap_user_time = 0), utrace measures one from
 * pairs of (TSC, CLOCK_MONOTONIC) readings taken as far apart as it can, so
 * all processes share one conversion and their events merge in true order.
 */
#ifndef UT_CLOCK_H
#define UT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct ut_tsc_pair {
	uint64_t tsc;
	uint64_t mono;
};

/* The CPU's cycle counter now (arch/<arch>/tsc.c). */
uint64_t ut_tsc_now(void);

/* A (TSC, CLOCK_MONOTONIC) pair read as close together as possible. */
void ut_tsc_pair_read(struct ut_tsc_pair *p);

/* mult/shift such that ns = ((tsc - a.tsc) * mult) >> shift + a.mono, from two pairs. */
bool ut_tsc_mult(const struct ut_tsc_pair *a, const struct ut_tsc_pair *b, uint32_t *mult,
		 uint32_t *shift);

/*
 * Measure a conversion over at least @spin_ns: the first pair in @start,
 * mult/shift out.  Without a usable TSC: 1 cycle = 1 ns (wrong scale, still
 * ordered).
 */
void ut_tsc_calibrate(struct ut_tsc_pair *start, uint64_t spin_ns, uint32_t *mult,
		      uint32_t *shift);

/* The same with @start read earlier: waits only for what is left of @spin_ns. */
void ut_tsc_calibrate_from(const struct ut_tsc_pair *start, uint64_t spin_ns, uint32_t *mult,
			   uint32_t *shift);

/* The environment variable `utrace record` passes a conversion in: "tsc0 mono0 mult shift". */
#define UT_CLOCK_ENV "UTRACE_TSC_CONV"

#endif
