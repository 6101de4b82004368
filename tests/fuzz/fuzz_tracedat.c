// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the trace.dat reader (reader/tracedat_read.c), which
 * `utrace report` runs on files from anywhere.  The input is the file.
 *
 * Whatever the bytes, opening and reading must end in events or an error
 * naming the file, never a crash, a leak or a loop.  The merged read
 * (ut_tracedat_next) and the per-CPU cursors (ut_tracedat_cpu_next) must
 * hand out the same number of events: both stop each CPU at its first bad
 * page, after every complete event before it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reader/tracedat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count_merged(const char *path)
{
	char err[256];
	struct ut_tracedat *r = ut_tracedat_open(path, err, sizeof(err));
	struct ut_event ev;
	uint64_t lost;
	size_t n = 0;
	int ret;

	if (!r)
		return SIZE_MAX;
	while ((ret = ut_tracedat_next(r, &ev, &lost, err, sizeof(err))) == 1) {
		if (ev.str && strlen(ev.str) >= (size_t)UT_TRACEDAT_PAGE_SIZE * 256)
			abort();
		n++;
	}
	if (ret < 0 && !strstr(err, path))
		abort(); /* an error must name the file */
	ut_tracedat_close_reader(r);
	return n;
}

static size_t count_cursors(const char *path)
{
	char err[256];
	struct ut_tracedat *r = ut_tracedat_open(path, err, sizeof(err));
	size_t n = 0;

	if (!r)
		return SIZE_MAX;
	for (int cpu = ut_tracedat_nr_cpus(r) - 1; cpu >= 0; cpu--) {
		struct ut_event ev;
		uint64_t lost;
		int ret;

		while ((ret = ut_tracedat_cpu_next(r, cpu, &ev, &lost, err, sizeof(err))) == 1) {
			if (ev.cpu != (uint32_t)cpu)
				abort();
			n++;
		}
		if (ret < 0 && !strstr(err, path))
			abort();
	}
	ut_tracedat_close_reader(r);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];

	if (fd < 0)
		fd = memfd_create("fuzz-trace.dat", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (count_merged(path) != count_cursors(path))
		abort();
	return 0;
}
