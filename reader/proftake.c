// SPDX-License-Identifier: MIT
/*
 * The profiler's tables of exited threads, taken while the program runs.
 *
 * Each thread slot has one table (prof.<slot>), kept across the threads
 * that use the slot.  `record`'s profile read them only at the end, so the
 * runtime could not reuse an exited thread's slot before (its counts would
 * have gone to the next thread): a program replacing its threads used a new
 * slot, and a new 512 KiB table, per thread, up to 4,096.  Now the
 * recorder copies an exited thread's used rows as it finds them (a few
 * rows: the functions it called), marks the table taken for that
 * incarnation of the slot, and the runtime empties it for the slot's next
 * thread (docs/shm-abi.md, Recycling), as it reuses a buffer once drained.
 * The copies are printed with the tables read at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/control.h"
#include "common/grow.h"
#include "reader/proftake.h"
#include "utrace/read.h"

/* Whether @h (of @len bytes mapped) is a table to read; untrusted input. */
static bool table_ok(const struct ut_prof_hdr *h, size_t len)
{
	return h->magic == UT_PROF_MAGIC && h->version == UT_ABI_VERSION && h->nr_entries &&
	       !(h->nr_entries & (h->nr_entries - 1)) &&
	       (len - sizeof(*h)) / sizeof(struct ut_prof_entry) >= h->nr_entries;
}

#define PAGE 4096u
#define ROWS_PER_PAGE (PAGE / sizeof(struct ut_prof_entry))

/*
 * Which pages of the table (file @path, @len bytes) hold data: a thread
 * touches the rows of the few functions it calls, and the rest of the file
 * is a hole (the runtime creates it sparse and punches it again to reuse
 * it).  Reading all 512 KiB of every exited thread's table made the
 * recorder slower than a program making threads.  The file's data
 * extents (SEEK_DATA/SEEK_HOLE, right also for pages swapped out); NULL:
 * look at every page.
 */
static unsigned char *data_pages(const char *path, size_t len)
{
	size_t npages = (len + PAGE - 1) / PAGE;
	unsigned char *vec = calloc(npages, 1);
	int fd = ut_live_open(path, O_RDONLY);
	off_t at = 0;

	if (!vec || fd < 0) {
		free(vec);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((size_t)at < len) {
		off_t data = lseek(fd, at, SEEK_DATA), hole;

		if (data < 0)
			break; /* ENXIO: no data past @at (else: as if none) */
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			hole = (off_t)len;
		for (size_t p = (size_t)data / PAGE; p < npages && (off_t)(p * PAGE) < hole; p++)
			vec[p] = 1;
		at = hole;
	}
	close(fd);
	return vec;
}

/* @h's used rows copied into @out. */
static int copy_rows(const char *path, const struct ut_prof_hdr *h, size_t len,
		     struct ut_proftab *out)
{
	const struct ut_prof_entry *e = (const struct ut_prof_entry *)(h + 1);
	unsigned char *vec = data_pages(path, len);
	size_t n = 0, cap = 0;

	out->e = NULL;
	out->n = 0;
	for (uint32_t i = 0; i < h->nr_entries; i++) {
		size_t page = (sizeof(*h) + (size_t)i * sizeof(*e)) / PAGE;

		if (vec && !(vec[page] & 1)) { /* a hole: the page's rows are empty */
			i = (uint32_t)(((page + 1) * PAGE - sizeof(*h)) / sizeof(*e)) - 1;
			continue;
		}
		if (!e[i].ip || !e[i].hits)
			continue;
		if (n == cap && ut_grow(&out->e, &cap, sizeof(*out->e), ROWS_PER_PAGE)) {
			free(vec);
			return -ENOMEM;
		}
		out->e[n++] = e[i];
	}
	free(vec);
	out->n = n;
	out->tid = h->tid;
	out->cpu_time = h->cpu_time;
	out->overflow = h->overflow;
	return 0;
}

int ut_prof_copy(const char *path, struct ut_proftab *out, uint64_t *taken, char *err,
		 size_t errlen)
{
	struct ut_prof_hdr *h;
	size_t len;
	int ret = ut_sess_map_file(path, false, sizeof(*h), 0, (void **)&h, &len, err, errlen);

	memset(out, 0, sizeof(*out));
	if (ret)
		return ret;
	ret = 0;
	if (table_ok(h, len)) {
		*taken = __atomic_load_n(&h->taken, __ATOMIC_ACQUIRE);
		ret = copy_rows(path, h, len, out) ? -ENOMEM : 1;
	}
	munmap(h, len);
	return ret;
}

int ut_prof_take(const char *path, const struct ut_thread_slot *ts, uint32_t slot,
		 uint64_t *gen_seen, struct ut_proftab *out, char *err, size_t errlen)
{
	uint64_t gen = __atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE);
	struct ut_prof_hdr *h;
	size_t len;
	int ret;

	if (*gen_seen == gen + 1 ||
	    __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) != UT_SLOT_EXITED)
		return 0;
	ret = ut_sess_map_file(path, true, sizeof(*h), 0, (void **)&h, &len, err, errlen);
	if (ret == -ENOENT) { /* the thread did not profile */
		*gen_seen = gen + 1;
		return 0;
	}
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	ret = 0;
	if (table_ok(h, len) && __atomic_load_n(&h->taken, __ATOMIC_ACQUIRE) != gen + 1)
		ret = copy_rows(path, h, len, out) ? -ENOMEM : 1;
	/* reused while we copied (the runtime overwrote an untaken slot): not ours */
	if (ret == 1 && (__atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != gen ||
			 __atomic_load_n(&ts->state, __ATOMIC_ACQUIRE) != UT_SLOT_EXITED)) {
		free(out->e);
		out->e = NULL;
		ret = 0;
	}
	if (ret == 1) {
		memcpy(out->comm, ts->comm, 16);
		out->slot = slot;
		out->gen = gen;
		__atomic_store_n(&h->taken, gen + 1, __ATOMIC_RELEASE);
	}
	if (ret >= 0)
		*gen_seen = gen + 1;
	munmap(h, len);
	return ret;
}
