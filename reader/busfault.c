// SPDX-License-Identifier: MIT
/*
 * Buffer files cut short under a reader (include/utrace/read.h,
 * ut_read_guard_bus).
 *
 * Readers map the threads' buffers and control blocks shared, as files of
 * the session root.  A file truncated by someone while it is mapped turns
 * every later touch of a page past its new end into SIGBUS (BUS_ADRERR),
 * and the reader died of it in the middle of show, extract or the mount's
 * trace.  Checking the size before each copy leaves a window; instead a
 * front end asks for this guard: such a fault puts a private page of zeros
 * where the file's page was and the read goes on.  The rings are read by
 * decoders made for garbage (fuzzed): zeros read as an empty or unknown
 * stretch, the other threads are read whole, and the front end says how
 * many pages were lost once it is done (ut_read_bus_faults).  Any other
 * SIGBUS goes to the handler that was there before, or kills as it would
 * have.
 */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "utrace/read.h"

static struct sigaction before;
static unsigned long faults;
static int installed;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t page = (uintptr_t)si->si_addr & ~(uintptr_t)4095;

	if (si->si_code == BUS_ADRERR && page &&
	    mmap((void *)page, 4096, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED) {
		__atomic_add_fetch(&faults, 1, __ATOMIC_RELAXED);
		return;
	}
	if (before.sa_flags & SA_SIGINFO && before.sa_sigaction) {
		before.sa_sigaction(sig, si, uc);
		return;
	}
	if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
		before.sa_handler(sig);
		return;
	}
	signal(SIGBUS, SIG_DFL); /* dies by it, as it would have */
	raise(SIGBUS);
}

int ut_read_guard_bus(void)
{
	struct sigaction act;

	if (__atomic_exchange_n(&installed, 1, __ATOMIC_ACQ_REL))
		return 0;
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = on_bus;
	act.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER;
	sigemptyset(&act.sa_mask);
	return sigaction(SIGBUS, &act, &before) ? -1 : 0;
}

unsigned long ut_read_bus_faults(void)
{
	return __atomic_load_n(&faults, __ATOMIC_RELAXED);
}
