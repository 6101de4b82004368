// SPDX-License-Identifier: MIT
/* Pages present at once (see populate.h). */
#include "common/populate.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Below this a fault per page costs less than the system call. */
#define POPULATE_MIN (64u << 10)
/*
 * At most this much: a list size read from a damaged or hostile file must
 * not commit memory that nothing writes (pages past it fault as used).
 */
#define POPULATE_MAX (64u << 20)

void ut_populate(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo, hi;

	if (!p || len < POPULATE_MIN)
		return;
	if (len > POPULATE_MAX)
		len = POPULATE_MAX;
	lo = ((uintptr_t)p + pg - 1) & ~(pg - 1);
	hi = ((uintptr_t)p + len) & ~(pg - 1);
	/* a failure (an old kernel: EINVAL) leaves the pages to fault one by one */
	if (hi > lo)
		(void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}
