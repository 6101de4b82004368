/* SPDX-License-Identifier: MIT */
/*
 * A mutex with priority inheritance: a real-time thread that blocks on it
 * lends its priority to the holder.  The recorder's drainer is real-time and
 * shares locks with normal threads (the writer, niced while behind, the
 * queue's grower): one preempted while holding such a lock on a busy
 * machine must not hold the drainer up, and the program's lossless threads
 * waiting on the drainer with it.
 */
#ifndef UT_COMMON_PI_MUTEX_H
#define UT_COMMON_PI_MUTEX_H

#include <pthread.h>

void ut_mutex_init_pi(pthread_mutex_t *mu);

#endif
