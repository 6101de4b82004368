// SPDX-License-Identifier: MIT
/* A session directory's name (common/sessname.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/sessname.h"

void ut_sessname_make(char *buf, size_t len, int32_t pid, uint64_t born_ns)
{
	snprintf(buf, len, "%d.%llu", (int)pid, (unsigned long long)born_ns);
}

bool ut_sessname_parse(const char *name, int32_t *pid, uint64_t *born_ns)
{
	char *end;
	long p;
	unsigned long long t;

	if (name[0] < '0' || name[0] > '9')
		return false;
	errno = 0;
	p = strtol(name, &end, 10);
	if (*end != '.' || p <= 0 || p > INT32_MAX || end[1] < '0' || end[1] > '9')
		return false;
	t = strtoull(end + 1, &end, 10);
	if (*end || errno)
		return false;
	if (pid)
		*pid = (int32_t)p;
	if (born_ns)
		*born_ns = t;
	return true;
}
