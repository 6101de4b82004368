// SPDX-License-Identifier: MIT
/* A mutex with priority inheritance (pi_mutex.h). */
#include "common/pi_mutex.h"

void ut_mutex_init_pi(pthread_mutex_t *mu)
{
	pthread_mutexattr_t ma;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(mu, &ma);
	pthread_mutexattr_destroy(&ma);
}
