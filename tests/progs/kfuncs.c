// SPDX-License-Identifier: MIT
/*
 * kfuncs: a traced program whose functions carry the kernel names that the
 * kernel's ftrace self-tests (tools/testing/selftests/ftrace) filter on and
 * look for in the trace: schedule, scheduler_tick, the fork function
 * (kernel_clone, or _do_fork on old kernels), do_execve*, spin locks and
 * mutexes, sys_ calls.  tests/mount/230-kselftest.sh runs those tests
 * against the mount while this program calls every one of them, in a loop,
 * about every millisecond, until its stdin ends.
 *
 * Nothing is computed: the names are what matters, each a real call.
 */
#include <poll.h>
#include <stdio.h>

#include "progs.h"

DEFINE_SINK;

/* The fork function's old name starts with '_': given as the symbol name. */
NOINLINE int old_do_fork(int x) __asm__("_do_fork");

NOINLINE int raw_spin_lock(int x) { SINK(x); return x; }
NOINLINE int raw_spin_unlock(int x) { SINK(x); return x; }
NOINLINE int raw_spin_trylock(int x) { SINK(x); return x; }
NOINLINE int mutex_lock(int x) { SINK(x); return x; }
NOINLINE int mutex_unlock(int x) { SINK(x); return x; }
NOINLINE int mutex_trylock(int x) { SINK(x); return x; }
NOINLINE int console_unlock(int x) { SINK(x); return x; }
NOINLINE int sys_read(int x) { SINK(x); return x; }
NOINLINE int SyS_write(int x) { SINK(x); return x; }
NOINLINE int scheduler_tick(int x) { SINK(x); return x; }

/* the scheduler: schedule() takes the run-queue lock, as the kernel's does */
NOINLINE int schedule(int x)
{
	return raw_spin_unlock(raw_spin_lock(x));
}

NOINLINE int io_schedule(int x) { return schedule(x) + 1; }
NOINLINE int schedule_timeout(int x) { return schedule(x) + 2; }

NOINLINE int do_execveat_common(int x)
{
	return mutex_unlock(mutex_lock(x));
}

NOINLINE int do_execve(int x) { return do_execveat_common(x); }

NOINLINE int kernel_clone(int x)
{
	return mutex_trylock(raw_spin_trylock(x));
}

NOINLINE int old_do_fork(int x) { return kernel_clone(x); }

/* one round: every name called once */
NOINLINE int kfuncs_round(int i)
{
	int s = schedule(i) + io_schedule(i) + schedule_timeout(i) + scheduler_tick(i);

	s += kernel_clone(i) + old_do_fork(i) + do_execve(i);
	s += console_unlock(i) + sys_read(i) + SyS_write(i);
	return s;
}

int main(void)
{
	struct pollfd in = {.fd = 0, .events = POLLIN};

	printf("ready\n");
	fflush(stdout);
	/* a round each millisecond until stdin has something or ends */
	for (int i = 0; !poll(&in, 1, 1); i++)
		SINK(kfuncs_round(i));
	return 0;
}
