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
 * Tests: UTRACE_TEST_DRAIN_DELAY_US=N makes every drain pass sleep N
 * microseconds first: a recorder slower than its writers, on any machine.
 */
void ut_bp_test_delay(void);

#endif
