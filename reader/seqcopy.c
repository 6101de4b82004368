// SPDX-License-Identifier: MIT
/* A table copied under its writer's sequence count (reader/seqcopy.h). */
#include <string.h>

#include "reader/seqcopy.h"

bool ut_seq_copy(const uint64_t *gen_at, const uint32_t *nr_at, uint32_t max, const void *src,
		 size_t esize, void *out, uint32_t *nr)
{
	uint64_t gen = __atomic_load_n(gen_at, __ATOMIC_ACQUIRE);
	uint32_t n;

	if (gen & 1)
		return false;
	n = __atomic_load_n(nr_at, __ATOMIC_ACQUIRE);
	if (n > max)
		n = max;
	memcpy(out, src, n * esize);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(gen_at, __ATOMIC_RELAXED) != gen)
		return false;
	*nr = n;
	return true;
}
