// SPDX-License-Identifier: MIT
/* Creating a session's control block (common/ctl.h). */
#include "common/ctl.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

struct ut_ctl *ut_ctl_create(int dirfd, const char *name, uint64_t start_ns)
{
	int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct ut_ctl *ctl;
	int err;

	if (fd < 0)
		return NULL;
	/*
	 * Every page now (ENOSPC: no session): readers read any slot of it,
	 * and a page the file system could not give later would be a hole
	 * they fault on.
	 */
	if (ftruncate(fd, sizeof(*ctl)) || fallocate(fd, 0, 0, sizeof(*ctl))) {
		err = errno;
		unlinkat(dirfd, name, 0);
		close(fd);
		errno = err;
		return NULL;
	}
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	close(fd);
	if (ctl == MAP_FAILED) {
		errno = err;
		return NULL;
	}
	ctl->version = UT_ABI_VERSION;
	ctl->size = sizeof(*ctl);
	ctl->pid = getpid();
	ctl->alive = 1;
	ctl->tracing_on = 1;
	ctl->start_ns = start_ns;
	return ctl;
}

void ut_ctl_publish(struct ut_ctl *ctl)
{
	__atomic_store_n(&ctl->magic, UT_ABI_MAGIC, __ATOMIC_RELEASE);
}
