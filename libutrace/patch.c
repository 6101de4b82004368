// SPDX-License-Identifier: MIT
/*
 * The patcher: turns sites into calls and back while other threads run them.
 *
 * Text is written through /proc/self/mem, which needs no change of page
 * protection: the text is never writable.  A site that changes goes through
 * the kernel's text_poke_bp protocol:
 *
 *   1. write int3 over its first byte              sync all cores
 *   2. write the rest of the new instruction       sync all cores
 *   3. write the new first byte                    sync all cores
 *
 * A thread that reaches the site meanwhile traps; our SIGTRAP handler moves
 * it past the site (as if it were the nop), so no thread ever executes a
 * half-written instruction.  "sync" is membarrier(SYNC_CORE), which
 * serialises instruction fetch on every CPU running this process.  All
 * changing sites go through each phase together, written in chunks of up to
 * 64 KiB, so 100k sites cost a few hundred writes and three syncs per phase.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/proc_alive.h"
#include "common/filter.h"
#include "libutrace/internal.h"
#include "libutrace/ool.h"
#include "libutrace/signals.h"

#define CHUNK 65536

static bool have_membarrier;
static uint8_t chunk_buf[CHUNK + 16];

static void sync_cores(void)
{
	if (have_membarrier)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
}

/* Serialise instruction fetch on every core running the process (other writers of text). */
void ut_patch_sync(void)
{
	sync_cores();
}

/*
 * Called by the SIGTRAP handler: true if the trap was one of our sites (or
 * the prologue installer's signal).  A thread resumes as if the site were
 * its nop: after it, or for a patched prologue in its slot (the bytes after
 * the site may be the function's own while the patch is being installed).
 */
static bool site_trap(siginfo_t *si, ucontext_t *uc)
{
	uint64_t a = ut_arch_trap_addr(uc);
	struct ut_module *m = NULL;
	struct ut_site *s;

	if (ut_prologue_signal(si, uc))
		return true;
	s = ut_sites_find_in(a, &m);
	if (!s) {
		uint64_t to = ut_ool_trap(a);

		if (!to)
			return ut_usdt_trap(uc);
		ut_arch_set_pc(uc, to);
		ut_ool_trap_answers();
		return true;
	}
	if (m->kind == UT_KIND_LIBCALL)
		return false; /* a library call's site is GOT slots: the bytes at its address are not ours */
	if (m->kind == UT_KIND_PROLOGUE) {
		ut_arch_set_pc(uc, ut_prologue_resume(m, s));
		ut_ool_trap_answers();
	} else {
		ut_arch_set_pc(uc, a + s->len);
	}
	return true;
}

int ut_patch_byte(uint64_t addr, uint8_t byte)
{
	return pwrite(ut_rt.memfd, &byte, 1, (off_t)addr) == 1 ? 0 : -EIO;
}

int ut_patch_init(void)
{
	ut_rt.memfd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
	if (ut_rt.memfd < 0)
		return -errno;
	have_membarrier =
		syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
	return ut_signals_init(site_trap);
}

/*
 * In a forked child: the /proc/self/mem it inherited writes the parent's
 * memory (the file holds the process it was opened in), and the
 * membarrier registration was the parent's.  Both made again.
 */
void ut_patch_after_fork(void)
{
	int fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);

	if (ut_rt.memfd >= 0)
		close(ut_rt.memfd);
	ut_rt.memfd = fd; /* -1: writes fail (EIO) rather than patch the parent */
	have_membarrier =
		syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
}

/* Where the patcher is in a batch: which bytes of each site to write. */
enum phase { PH_DIRECT, PH_TRAP, PH_TAIL, PH_HEAD };

/*
 * The site's new bytes, in @out or a table: the nop of each length is made
 * once (start-up writes it over 100,000 sites).
 */
static const uint8_t *encode(const struct ut_module *m, const struct ut_site *s, uint8_t *out)
{
	static uint8_t nops[UT_ARCH_SITE_MAX + 1][UT_ARCH_SITE_MAX];
	static bool made[UT_ARCH_SITE_MAX + 1];

	if (s->want == UT_SITE_FUNC || s->len > UT_ARCH_SITE_MAX) {
		if (s->want == UT_SITE_FUNC)
			ut_arch_make_call(out, s->len, s->addr, m->stub_addr);
		else
			ut_arch_make_nop(out, s->len);
		return out;
	}
	if (!made[s->len]) { /* under ut_rt.lock, as every caller */
		ut_arch_make_nop(nops[s->len], s->len);
		made[s->len] = true;
	}
	return nops[s->len];
}

/* Edit the site's bytes in the chunk; false if they are already what they should be. */
static bool apply_site(const struct ut_module *m, const struct ut_site *s, enum phase ph,
		       uint8_t *dst)
{
	uint8_t buf[UT_ARCH_SITE_MAX];
	const uint8_t *insn = encode(m, s, buf);
	switch (ph) {
	case PH_DIRECT: {
		bool differ = false;

		/* a loop, not memcmp(): a call per site shows at 100,000 sites */
		for (unsigned i = 0; i < s->len; i++) {
			differ |= dst[i] != insn[i];
			dst[i] = insn[i];
		}
		return differ; /* clang's sites are the canonical nop already */
	}
	case PH_TRAP:
		dst[0] = UT_ARCH_TRAP_BYTE;
		break;
	case PH_TAIL:
		memcpy(dst + 1, insn + 1, s->len - 1u);
		break;
	case PH_HEAD:
		dst[0] = insn[0];
		break;
	}
	return true;
}

static int write_chunk(uint64_t start, size_t len)
{
	ssize_t n = pwrite(ut_rt.memfd, chunk_buf, len, (off_t)start);

	return n == (ssize_t)len ? 0 : -EIO;
}

static bool changes(const struct ut_site *s, bool all)
{
	return all || s->want != s->state;
}

/*
 * One phase over the changing sites of one module: sites are sorted, so
 * neighbours share a chunk, read from the live text in one copy (not one a
 * site: 100,000 of them at start-up), edited, written back.
 */
static int run_phase(struct ut_module *m, enum phase ph, bool all)
{
	uint32_t i = 0, n = m->nr_sites;

	while (i < n) {
		uint64_t start;
		uint32_t last;
		bool dirty = false; /* a chunk that changes nothing is not written (no copy-on-write) */

		for (; i < n && !changes(&m->sites[i], all); i++)
			;
		if (i == n)
			break;
		start = m->sites[i].addr;
		last = i;
		for (uint32_t j = i + 1; j < n && m->sites[j].addr + m->sites[j].len - start <= CHUNK; j++)
			if (changes(&m->sites[j], all))
				last = j;
		size_t len = m->sites[last].addr + m->sites[last].len - start;

		memcpy(chunk_buf, (const void *)start, len);
		for (; i <= last; i++)
			if (changes(&m->sites[i], all))
				dirty |= apply_site(m, &m->sites[i], ph, chunk_buf + (m->sites[i].addr - start));
		if (dirty && write_chunk(start, len))
			return -EIO;
	}
	return 0;
}

/* A stub within call reach of every site of @m: two pages, code then slot. */
static int make_stub(struct ut_module *m)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t base = m->lo & ~(uint64_t)(pg - 1);

	for (int64_t step = 1; step < 4096; step++) {
		for (int dir = -1; dir <= 1; dir += 2) {
			uint64_t hint = dir < 0 ? base - (uint64_t)step * 0x100000
						: ((m->hi + (uint64_t)pg) & ~(uint64_t)(pg - 1)) +
							  (uint64_t)step * 0x100000;
			uint8_t *p;

			if ((int64_t)(hint - m->lo) > UT_ARCH_CALL_REACH - 2 * pg ||
			    (int64_t)(m->hi - hint) > UT_ARCH_CALL_REACH)
				continue;
			p = mmap((void *)hint, 2 * (size_t)pg, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if ((uint64_t)p != hint) {
				munmap(p, 2 * (size_t)pg);
				continue;
			}
			m->stub_page = p;
			m->stub_addr = hint;
			m->stub_slot = (uint64_t *)(p + pg);
			*m->stub_slot = (uint64_t)utrace_func_caller;
			ut_arch_make_stub(p, hint, hint + (uint64_t)pg);
			if (mprotect(p, (size_t)pg, PROT_READ | PROT_EXEC))
				return -errno;
			return 0;
		}
	}
	return -ENOMEM;
}

/**
 * ut_patch_prepare_module - get a newly found module ready for patching
 *
 * Rewrites every site into the canonical disabled form (one 5-byte nop, plus
 * a 1-byte nop for 6-byte sites) in one direct write per chunk: this happens
 * before the module's code can run concurrently (start-up, or dlopen before
 * it returns), so no thread can be inside a multi-byte nop sequence.
 */
int ut_patch_prepare_module(struct ut_module *m)
{
	int ret = make_stub(m);

	if (ret || m->kind != UT_KIND_COMPILER)
		return ret; /* other kinds' sites are written by their installer */
	for (uint32_t i = 0; i < m->nr_sites; i++)
		m->sites[i].want = m->sites[i].state = UT_SITE_OFF;
	ret = run_phase(m, PH_DIRECT, true);
	sync_cores();
	return ret;
}

/*
 * True when this is the process's only thread (/proc/self/stat's
 * num_threads): then no one can be running a site while it changes, and the
 * new bytes go in with one direct write per chunk and one sync, not three
 * phases: the start-up patching of 100,000 sites, before main.
 */
static bool alone(void)
{
	return ut_proc_threads() == 1;
}

/**
 * ut_patch_apply - bring every site to its wanted state
 *
 * Only sites whose state changes are written.  Must hold ut_rt.lock.
 * Return: number of sites changed, or a negative errno.
 */
/* One phase over every live module with sites in its text (not a hooks module), then a sync. */
static int run_all(enum phase ph)
{
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		const struct ut_module *m = ut_rt.mods[i];
		int ret = m->alive && m->kind != UT_KIND_LIBCALL ? run_phase(ut_rt.mods[i], ph, false) : 0;

		if (ret)
			return ret;
	}
	sync_cores();
	return 0;
}

int ut_patch_apply(void)
{
	static const enum phase phases[] = {PH_TRAP, PH_TAIL, PH_HEAD};
	int plt = ut_plt_apply(); /* library calls' GOT slots: also those of objects just loaded */
	int changed = 0, ret = 0;

	ut_prologue_install(); /* patched prologues wanted for the first time */
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		for (uint32_t j = 0; m->alive && m->kind != UT_KIND_LIBCALL && j < m->nr_sites; j++)
			changed += m->sites[j].want != m->sites[j].state;
	}
	if (changed && alone())
		ret = run_all(PH_DIRECT);
	else
		for (size_t p = 0; changed && !ret && p < sizeof(phases) / sizeof(phases[0]); p++)
			ret = run_all(phases[p]);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		for (uint32_t j = 0; j < m->nr_sites; j++)
			m->sites[j].state = m->sites[j].want;
	}
	return changed + plt;
}
