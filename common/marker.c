// SPDX-License-Identifier: MIT
/*
 * trace_marker written from outside the traced process (the mount's
 * trace_marker file): the text goes into a buffer of the writer's own, a
 * thread slot it claims in the session's control block (the claim is the
 * same atomic increment the process's threads use), tagged UT_SLOT_MARKER
 * and reused by the same writer.  Readers see a thread of the writer's pid
 * and comm, like the kernel shows the task that wrote to trace_marker.
 *
 * Each marker is a TIME record (the full timestamp, in the session's clock)
 * followed by the MARKER record, both in one page.  Writers of one buffer are
 * serialised with flock on its file.
 *
 * The top level (every process) writes into a markers-only session of the
 * writing tool (UT_CTL_MARKERS: no agent, no sites), created on first use.
 * An instance's trace_marker writes into the same slot's buffer of that
 * instance (iK.buf.<slot>), in the instance's clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/control.h"
#include "common/ctl.h"
#include "common/ring_buffer.h"
#include "common/sessname.h"
#include "common/synthrec.h"
#include "utrace/abi.h"
#include "utrace/read.h"

#define MARKER_BUF (16ul * UT_PAGE_SIZE)

static uint64_t now_in(uint32_t clock)
{
	struct timespec ts;
	clockid_t id = CLOCK_MONOTONIC;

	if (clock == UT_CLOCK_LOCAL || clock == UT_CLOCK_X86_TSC)
		return ut_tsc_now();
	if (clock == UT_CLOCK_MONO_RAW)
		id = CLOCK_MONOTONIC_RAW;
	else if (clock == UT_CLOCK_BOOT)
		id = CLOCK_BOOTTIME;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Create the marker buffer @path (PREFIX<slot>) of thread @tid in slot @slot. */
static int marker_file(const char *path, int32_t tid, uint32_t slot)
{
	struct ut_buf_hdr *h;
	int fd;

	fd = ut_live_open(path, O_RDWR | O_CREAT | O_EXCL);
	if (fd < 0)
		return fd == -EEXIST ? 0 : fd; /* another writer of the slot made it */
	/* every page now: a page a full file system could not give later would fault */
	if (ftruncate(fd, UT_BUF_HDR_SIZE + MARKER_BUF) ||
	    fallocate(fd, 0, 0, UT_BUF_HDR_SIZE + MARKER_BUF)) {
		int err = errno;

		close(fd);
		unlink(path);
		return -err;
	}
	h = mmap(NULL, UT_BUF_HDR_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (h == MAP_FAILED)
		return -errno;
	h->version = UT_ABI_VERSION;
	h->buf_size = MARKER_BUF;
	h->tid = tid;
	h->slot = slot;
	__atomic_store_n(&h->magic, UT_BUF_MAGIC, __ATOMIC_RELEASE);
	munmap(h, UT_BUF_HDR_SIZE);
	return 0;
}

/* The writer's slot in @ctl: an existing marker slot of @tid, or a new one. */
static int marker_slot(struct ut_ctl *ctl, const char *sessdir, int32_t tid, const char *comm)
{
	uint32_t nr = __atomic_load_n(&ctl->nr_slots, __ATOMIC_ACQUIRE), slot;
	struct ut_thread_slot *s;
	char path[PATH_MAX + 32];
	int ret;

	if (nr > UT_MAX_THREADS)
		nr = UT_MAX_THREADS;
	for (uint32_t i = 0; i < nr; i++)
		if (ctl->threads[i].reserved[0] == UT_SLOT_MARKER && ctl->threads[i].tid == tid &&
		    __atomic_load_n(&ctl->threads[i].state, __ATOMIC_ACQUIRE) == UT_SLOT_ACTIVE)
			return (int)i;
	slot = __atomic_fetch_add(&ctl->nr_slots, 1, __ATOMIC_ACQ_REL);
	if (slot >= UT_MAX_THREADS)
		return -ENOSPC;
	s = &ctl->threads[slot];
	s->tid = tid;
	memset(s->comm, 0, sizeof(s->comm));
	strncpy(s->comm, comm, sizeof(s->comm) - 1);
	s->reserved[0] = UT_SLOT_MARKER;
	snprintf(path, sizeof(path), "%s/buf.%u", sessdir, slot);
	ret = marker_file(path, tid, slot);
	if (ret)
		return ret;
	__atomic_store_n(&s->state, UT_SLOT_ACTIVE, __ATOMIC_RELEASE);
	return (int)slot;
}

/* The clock of instance @inst's buffers in @sessdir (its run-time dir is the parent). */
static uint32_t inst_clock(const char *sessdir, int inst)
{
	char rundir[PATH_MAX];
	char *slash;

	snprintf(rundir, sizeof(rundir), "%s", sessdir);
	slash = strrchr(rundir, '/');
	if (slash)
		*slash = '\0';
	return ut_inst_clock(rundir, sessdir, inst);
}

/*
 * One event of the writer's into its buffer: a TIME record of now (in the
 * session's clock, or instance @inst's; *@ts gets it) then the record of
 * @size bytes, its two words @w0, @w1, then @len bytes of @data, the rest
 * zero; *@ts (if not NULL) gets the time in the trace clock's unit, as
 * readers show it.  0, -ENOSPC (full, producer/consumer mode) or -errno.
 */
static int put_event(const char *sessdir, int inst, int32_t tid, const char *comm, uint64_t w0,
		     uint64_t w1, const void *data, size_t len, uint64_t size, uint64_t *ts)
{
	struct ut_ctl *ctl = ut_live_map_ctl(sessdir);
	struct ut_clockconv conv;
	uint64_t need = UT_REC_SIZE + size;
	char path[PATH_MAX + 32], err[256];
	struct ut_buf_hdr *h;
	uint8_t *data_pages;
	uint64_t head, off, *w;
	size_t maplen;
	int slot, fd = -1, ret = 0;

	if (!ctl)
		return -errno;
	conv = (struct ut_clockconv){
	    .tsc0 = ctl->tsc0, .mono0 = ctl->mono0, .mult = ctl->tsc_mult, .shift = ctl->tsc_shift};
	slot = marker_slot(ctl, sessdir, tid, comm);
	if (slot < 0) {
		ut_live_unmap_ctl(ctl);
		return slot;
	}
	snprintf(path, sizeof(path), "%s/%s%d", sessdir, ut_live_buf_prefix(inst), slot);
	if (inst) { /* the slot's buffer in the instance: made at its first marker */
		ret = marker_file(path, tid, (uint32_t)slot);
		if (ret)
			goto out;
	}
	fd = ut_live_open(path, O_RDWR);
	if (fd < 0 || flock(fd, LOCK_EX)) {
		ret = fd < 0 ? fd : -errno;
		goto out;
	}
	/* mapped by the sessions layer (checked: trusted, a buffer of this ABI) */
	ret = ut_sess_map_buf(path, true, false, (void **)&h, &maplen, err, sizeof(err));
	if (ret) {
		ret = ret == -EPERM ? ret : -EINVAL; /* not (yet) a marker buffer of ours */
		goto out;
	}
	if (h->buf_size != MARKER_BUF) {
		ret = -EINVAL;
		goto unmap;
	}
	data_pages = (uint8_t *)h + UT_BUF_HDR_SIZE;
	head = h->head;
	off = head & (UT_PAGE_SIZE - 1);
	if (off && UT_PAGE_SIZE - off < need) { /* close the page */
		*(uint64_t *)(data_pages + (head & (MARKER_BUF - 1))) = 0;
		head += UT_PAGE_SIZE - off;
	}
	if (!ctl->overwrite && head + need - __atomic_load_n(&h->tail, __ATOMIC_ACQUIRE) >
				       MARKER_BUF) {
		h->dropped++;
		ret = -ENOSPC;
		goto unmap;
	}
	w = (uint64_t *)(data_pages + (head & (MARKER_BUF - 1)));
	w[0] = ut_rec_word0(UT_REC_TIME, 0, 0);
	conv.clock = inst ? inst_clock(sessdir, inst) : ctl->clock;
	w[1] = now_in(conv.clock);
	if (ts) /* as the trace shows it (the TSC of the local clock converted) */
		*ts = ut_clock_to_trace(&conv, w[1]);
	w[2] = w0;
	w[3] = w1; /* its time delta (the top bits): 0 from the TIME record */
	memset(w + 4, 0, size - 16);
	memcpy(w + 4, data, len);
	h->written++;
	__atomic_store_n(&h->head, head + need, __ATOMIC_RELEASE);
unmap:
	munmap(h, maplen);
out:
	if (fd >= 0)
		close(fd); /* drops the lock */
	ut_live_unmap_ctl(ctl);
	return ret;
}

int ut_live_marker_at(const char *sessdir, int inst, int32_t tid, const char *comm,
		      const char *text, uint64_t *ts)
{
	size_t n = strnlen(text, UT_REC_MARKER_MAX);

	return put_event(sessdir, inst, tid, comm, ut_rec_word0(UT_REC_MARKER, 0, n), 0, text, n,
			 16 + ((n + 1 + 15) & ~(uint64_t)15), ts);
}

int ut_live_marker(const char *sessdir, int inst, int32_t tid, const char *comm, const char *text)
{
	return ut_live_marker_at(sessdir, inst, tid, comm, text, NULL);
}

int ut_live_synth(const char *sessdir, int32_t tid, const char *comm, const struct ut_synth_def *d,
		  const uint64_t *args, const struct ut_evf *f)
{
	uint64_t rec[1 + UT_SYNTH_REC_WORDS];
	unsigned n = d->nfields, sb = ut_synth_lay_out(d, args, rec + 1);

	if (f && !ut_synth_passes(f, rec, n, sb, tid, comm, 0))
		return 0; /* its filter discards it */
	/* as the process writes it (libutrace/synth.c): a PROBE record at the event's pseudo address */
	return put_event(sessdir, 0, tid, comm, ut_rec_word0(UT_REC_PROBE, 0, ut_synth_pc(d->name)),
			 (uint64_t)sb << 8 | n, rec + 1, 8 * (size_t)n + sb,
			 16 + ((8 * (uint64_t)n + sb + 15) & ~(uint64_t)15), NULL);
}

int ut_live_synth_defs(const char *sessdir, const char *defs)
{
	char path[PATH_MAX + 16];
	size_t n = defs ? strlen(defs) : 0;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/synth", sessdir);
	fd = ut_live_open(path, O_WRONLY | O_CREAT | O_TRUNC);
	if (fd < 0)
		return fd;
	if (n && write(fd, defs, n) != (ssize_t)n)
		ret = -EIO;
	close(fd);
	return ret;
}

int ut_live_marker_session(const char *rundir, char *dir, size_t len)
{
	struct ut_live_sess *v;
	long n = ut_live_list(rundir, &v);
	struct ut_tsc_pair a;
	struct timespec now;
	struct ut_ctl *ctl;
	char name[64];
	int root, sfd;

	if (n < 0)
		return (int)n;
	for (long i = 0; v && i < n; i++) {
		if (v[i].pid == getpid() && v[i].markers && v[i].alive) {
			snprintf(dir, len, "%s", v[i].dir);
			free(v);
			return 0;
		}
	}
	free(v);
	clock_gettime(CLOCK_MONOTONIC, &now);
	ut_sessname_make(name, sizeof(name), getpid(),
			 (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec);
	if (snprintf(dir, len, "%s/%s", rundir, name) >= (int)len)
		return -ENAMETOOLONG;
	root = ut_live_root(rundir, true);
	if (root < 0)
		return root;
	sfd = mkdirat(root, name, 0700) ? -errno : ut_live_open(dir, O_RDONLY | O_DIRECTORY);
	close(root);
	if (sfd < 0)
		return sfd;
	ctl = ut_ctl_create(sfd, "ctl",
			    (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec);
	close(sfd);
	if (!ctl)
		return -errno;
	ctl->clock = UT_CLOCK_LOCAL;
	ctl->overwrite = 1;
	ctl->flags = UT_CTL_MARKERS;
	snprintf(ctl->comm, sizeof(ctl->comm), "utrace");
	/* a conversion of its own, like a process without perf */
	ut_tsc_calibrate(&a, 1000000, &ctl->tsc_mult, &ctl->tsc_shift);
	ctl->tsc0 = a.tsc;
	ctl->mono0 = a.mono;
	ut_ctl_publish(ctl);
	munmap(ctl, sizeof(*ctl));
	return 0;
}
