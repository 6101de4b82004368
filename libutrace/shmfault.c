// SPDX-License-Identifier: MIT
/*
 * Session files that cannot get a page (docs/shm-abi.md, "A full file
 * system").
 *
 * Buffers, profiler tables and the control block are files in the session
 * root (a tmpfs: /dev/shm), created sparse and mapped shared: a page is
 * allocated when first written.  When the file system is full, that write
 * faults with SIGBUS, and the program died of its trace.  So the runtime
 * owns SIGBUS (libutrace/signals.c, chaining to the program's handler) and
 * asks here first: a fault in one of our mappings is dealt with -- a ring
 * or table is replaced as a whole by private memory (its header page copied
 * in, so its thread goes on as it was), the control block only in the page
 * that faulted -- and the write goes on.  What the thread published before
 * stays readable in the file; what it writes after is seen by nobody.
 * Counted in ctl.shm_faults and said once on stderr.  Any other SIGBUS is
 * the program's.
 */
#include <signal.h>
#include <sys/mman.h>

#include "libutrace/internal.h"
#include "libutrace/signals.h"

#define PAGE 4096u

static bool told;

/* The mapping [@start, @start + @len) private from now on; its first @keep bytes copied. */
static bool privatize(uintptr_t start, size_t len, size_t keep)
{
	uint64_t *to = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	const uint64_t *from = (const uint64_t *)start;

	if (to == MAP_FAILED)
		return false;
	for (size_t i = 0; i < keep / sizeof(*to); i++) /* (no memcpy: -fno-builtin) */
		to[i] = from[i];
	if (mremap(to, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)start) == MAP_FAILED) {
		munmap(to, len);
		return false;
	}
	return true;
}

/* SIGBUS at @addr: ours (a session file's page), dealt with?  A signal handler. */
static bool on_fault(void *addr)
{
	uintptr_t a = (uintptr_t)addr, ctl = (uintptr_t)ut_rt.ctl, start;
	size_t len;
	bool done;

	if (ut_slot_mapping(a, &start, &len)) /* the header page was written when it was made */
		done = privatize(start, len, a - start >= PAGE ? PAGE : 0);
	else if (ctl && a >= ctl && a - ctl < sizeof(struct ut_ctl))
		done = privatize(a & ~(uintptr_t)(PAGE - 1), PAGE, 0);
	else
		return false;
	if (!done)
		return false;
	if (ut_rt.ctl) /* (page 0, the counters, got its page when the session was made) */
		__atomic_add_fetch(&ut_rt.ctl->shm_faults, 1, __ATOMIC_RELAXED);
	if (!__atomic_exchange_n(&told, true, __ATOMIC_RELAXED))
		ut_log("%s: no space left for the trace buffers (file system full): threads "
		       "traced from now on may not be seen; the program goes on",
		       ut_rt.dir);
	return true;
}

int ut_shmfault_init(void)
{
	return ut_signals_bus(on_fault);
}
