/* SPDX-License-Identifier: MIT */
/*
 * The recorder's side of back-pressure (record's lossless mode, see
 * libutrace/backpressure.c and docs/shm-abi.md): a heartbeat on every ring
 * it consumes, so that its writers wait for it rather than drop while it is
 * alive, and the wake-up of a writer sleeping for room.
 */
#ifndef UT_READER_BACKPRESSURE_H
#define UT_READER_BACKPRESSURE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/ring_buffer.h"

/* CLOCK_MONOTONIC in ns: the heartbeat's clock. */
uint64_t ut_bp_now(void);

/*
 * After a pass over @rb's ring that consumed what it could: store the
 * heartbeat @now and wake its writer if it sleeps for room.  Returns true
 * when the ring is under pressure (its writer was waiting, or the ring is
 * more than half full): the drainer should not nap.
 */
bool ut_bp_beat(const struct ut_rb_reader *rb, uint64_t now);

/*
 * The drainer's nap: @ns, or less if a writer of one of the @n rings starts
 * to sleep for room (it wakes its ring's `waiting` word first).  One
 * futex_waitv over the rings' words; more rings than it takes, or a kernel
 * without it (before 5.16): a plain sleep.
 */
void ut_bp_nap(const struct ut_rb_reader *const *rings, size_t n, long ns);
#define UT_BP_NAP_MAX 128 /* FUTEX_WAITV_MAX */

/*
 * Tests: UTRACE_TEST_DRAIN_DELAY_US=N makes every drain pass sleep N
 * microseconds first: a recorder slower than its writers, on any machine.
 */
void ut_bp_test_delay(void);
/* Test hooks: the microseconds environment variable @env says (0..10 s; else 0). */
long ut_test_us(const char *env);
/* Test hooks: sleep the microseconds environment variable @env says (0..10 s; *@cache starts at -1). */
void ut_test_delay_us(const char *env, long *cache);

#endif
