// SPDX-License-Identifier: MIT
/*
 * Sessions: the one place readers open and map what the runtime shares --
 * a session's control block (<session>/ctl) and its threads' buffers
 * (<session>/buf.N, instances' too).  Every file is opened through
 * common/safedir (O_NOFOLLOW|O_CLOEXEC, owner and mode checked on the open
 * file, a refusal kept for ut_live_strerror) and checked against the ABI
 * (include/utrace/abi.h) before anything in it is trusted: a file replaced
 * by a link is refused, one cut short is refused rather than mapped, since
 * touching a page past a file's end is SIGBUS, not an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/control.h"
#include "reader/ctl_cache.h"
#include "utrace/abi.h"
#include "utrace/read.h"

/* The message of a failed open: safedir's reason for a refusal, else errno's. */
static int open_failed(int fd, const char *path, char *err, size_t errlen)
{
	if (fd == -EPERM)
		snprintf(err, errlen, "%s", ut_live_strerror(fd));
	else
		snprintf(err, errlen, "%s: %s", path, strerror(-fd));
	return fd;
}

int ut_sess_map_file(const char *path, bool rw, size_t min, size_t want, void **map,
		       size_t *len, char *err, size_t errlen)
{
	int fd = ut_live_open(path, (rw ? O_RDWR : O_RDONLY) | O_NONBLOCK);
	struct stat st;
	void *p;

	if (fd < 0)
		return open_failed(fd, path, err, errlen);
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < (off_t)min) {
		snprintf(err, errlen, "%s: %lld bytes, shorter than the %zu its format needs", path,
			 (long long)st.st_size, min);
		close(fd);
		return -EINVAL;
	}
	/*
	 * A first page that is a hole: the file is being made, or its file
	 * system is full (the writer could not get the page).  Reading it
	 * through a shared mapping would allocate it, and fail with SIGBUS.
	 */
	if (st.st_size && lseek(fd, 0, SEEK_DATA) != 0) {
		snprintf(err, errlen, "%s: its first page is missing (being made, or its file "
			 "system is full)", path);
		close(fd);
		return -EAGAIN;
	}
	*len = want ? want : (size_t)st.st_size;
	/* Not populated: that would allocate every page of every thread's ring,
	 * used or not (a program with many threads would pay for all of them). */
	p = mmap(NULL, *len, rw ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	*map = p;
	return 0;
}

int ut_sess_map_ctl(const char *sessdir, bool rw, struct ut_ctl **out, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct ut_ctl *ctl = NULL;
	size_t len = 0;
	int fd, ret;

	*out = NULL;
	if (snprintf(path, sizeof(path), "%s/ctl", sessdir) >= (int)sizeof(path)) {
		snprintf(err, errlen, "%s: name too long", sessdir);
		return -ENAMETOOLONG;
	}
	fd = ut_live_open(sessdir, O_RDONLY | O_DIRECTORY); /* never a link to elsewhere */
	if (fd < 0)
		return open_failed(fd, sessdir, err, errlen);
	close(fd);
	ret = ut_sess_map_file(path, rw, sizeof(*ctl), sizeof(*ctl), (void **)&ctl, &len, err, errlen);
	if (ret || !ctl)
		return ret ? ret : -EINVAL;
	if (__atomic_load_n(&ctl->magic, __ATOMIC_ACQUIRE) != UT_ABI_MAGIC ||
	    ctl->version != UT_ABI_VERSION || ctl->size != sizeof(*ctl) || ctl->pid <= 0) {
		munmap(ctl, sizeof(*ctl));
		snprintf(err, errlen, "%s: not a control block of this ABI (yet)", path);
		return -EINVAL;
	}
	*out = ctl;
	return 0;
}

void ut_sess_unmap_ctl(struct ut_ctl *ctl)
{
	if (ctl)
		munmap(ctl, sizeof(*ctl));
}

/*
 * Test hook: UTRACE_TEST_CUT_MAPPED=SUFFIX cuts a buffer whose path ends
 * with SUFFIX back to its header page once it is mapped, as someone
 * truncating it under the reader would (ut_read_guard_bus).
 */
static void test_cut(const char *path)
{
	const char *suffix = getenv("UTRACE_TEST_CUT_MAPPED");
	size_t n = strlen(path), k = suffix ? strlen(suffix) : 0;

	if (k && n >= k && !strcmp(path + n - k, suffix) && truncate(path, UT_BUF_HDR_SIZE))
		return; /* (a test sees the reader go on unharmed, or not) */
}

int ut_sess_map_buf(const char *path, bool rw, bool header_only, void **map, size_t *len,
		    char *err, size_t errlen)
{
	const struct ut_buf_hdr *h;
	int ret;

	if (header_only)
		return ut_sess_map_file(path, rw, UT_BUF_HDR_SIZE, UT_BUF_HDR_SIZE, map, len, err,
				   errlen);
	ret = ut_sess_map_file(path, rw, UT_BUF_HDR_SIZE, 0, map, len, err, errlen);
	if (ret)
		return ret;
	test_cut(path);
	h = *map;
	/* the ring the header announces must be inside the file */
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != UT_BUF_MAGIC ||
	    h->version != UT_ABI_VERSION || h->buf_size > *len - UT_BUF_HDR_SIZE) {
		snprintf(err, errlen, "%s: not a thread buffer of this ABI, or cut short", path);
		munmap(*map, *len);
		*map = NULL;
		return -EINVAL;
	}
	return 0;
}

int ut_sess_map_thread(const char *sessdir, int inst, uint32_t slot, bool rw, void **map,
		       size_t *len, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "%s/%s%u", sessdir, ut_live_buf_prefix(inst), slot);
	return ut_sess_map_buf(path, rw, false, map, len, err, errlen);
}

/*
 * The one mapper, under the name the live-control code calls (read.h):
 * through the cache of mapped blocks (reader/ctl_cache.c).
 */
struct ut_ctl *ut_live_map_ctl(const char *sessdir)
{
	char err[256];
	struct ut_ctl *ctl;
	int ret = ut_ctl_cache_get(sessdir, &ctl, err, sizeof(err));

	if (ret) {
		errno = -ret;
		return NULL;
	}
	return ctl;
}

void ut_live_unmap_ctl(struct ut_ctl *ctl)
{
	ut_ctl_cache_put(ctl);
}
