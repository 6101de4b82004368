// SPDX-License-Identifier: MIT
/* Growing an array by doubling (see grow.h). */
#include "common/grow.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int ut_grow(void *arrayp, size_t *cap, size_t size, size_t first)
{
	size_t n = *cap ? 2 * *cap : first;
	void *old, *v;

	if (n < *cap || !size || n > SIZE_MAX / size)
		return -ENOMEM;
	/* the caller's pointer may be of any object type: moved as bytes */
	memcpy(&old, arrayp, sizeof(old));
	v = realloc(old, n * size);
	if (!v)
		return -ENOMEM;
	memcpy(arrayp, &v, sizeof(v));
	*cap = n;
	/* cppcheck does not follow the memcpy: v is the caller's array now, not leaked */
	// cppcheck-suppress memleak
	return 0;
}
