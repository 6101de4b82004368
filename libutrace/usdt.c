// SPDX-License-Identifier: MIT
/*
 * USDT probes in the runtime: each loaded object's probes (common/usdt.c
 * reads its .note.stapsdt when sites.c scans it), enabled and disabled as
 * the configuration's `events` words say, and recorded when hit.
 *
 * A probe is a 1-byte nop that sys/sdt.h put in the middle of the code:
 * the instructions after it are often a branch target (the code after an
 * `if`), and probes follow each other byte by byte, so it cannot become a
 * 5-byte call without relocating code that other paths jump into.  An
 * enabled probe is therefore an int3 (as the kernel's uprobes make it):
 * the SIGTRAP handler (patch.c's, which asks here for traps that are not
 * sites) finds the probe, fetches its arguments from the saved registers
 * and memory (arch/<arch>/usdt_fetch.c), writes one PROBE record into the
 * thread's ring and resumes after the nop.  One byte changes, so no
 * thread can see half an instruction; a thread that hits an int3 just
 * turned back into a nop (or a nop just made an int3) is handled either
 * way.  The cost is a signal delivery per hit (docs/architecture.md, USDT
 * probes); a disabled probe costs its nop.
 *
 * A probe with a semaphore (the counter PROVIDER_NAME_ENABLED() reads) has
 * it raised while the probe is enabled and lowered when it is disabled, as
 * the kernel's uprobes do, so the code that prepares its arguments runs.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/event.h"
#include "common/evfilter.h"
#include "libutrace/internal.h"
#include "libutrace/ool.h"

#define NOP1 0x90

static int cmp_probe(const void *a, const void *b)
{
	const struct ut_probe *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Whether the probe's address holds the 1-byte nop inside the module's code. */
static bool nop_at(const struct ut_module *m, uint64_t addr)
{
	return m->path[0] && addr > m->bias && *(const volatile uint8_t *)addr == NOP1;
}

/*
 * The probes of module @m from its file @elf: kept by run-time address.
 * A probe whose note cannot be used is left out of the run-time table (the
 * tools list it with the reason).
 */
void ut_usdt_scan(struct ut_module *m, Elf *elf)
{
	uint32_t n = 0;

	if (ut_usdt_read_elf(elf, &m->usdt) <= 0)
		return;
	m->probes = calloc(m->usdt.n, sizeof(*m->probes));
	if (!m->probes) {
		ut_usdt_list_free(&m->usdt);
		return;
	}
	for (size_t i = 0; i < m->usdt.n; i++) {
		const struct ut_usdt_probe *p = &m->usdt.v[i];
		struct ut_probe *r = &m->probes[n];

		r->addr = p->pc + m->bias;
		r->semaphore = p->semaphore ? p->semaphore + m->bias : 0;
		r->idx = (uint32_t)i;
		r->usable = p->nargs >= 0 && nop_at(m, r->addr);
		for (int k = 0; k < p->nargs; k++)
			r->strings |= p->arg[k].is_string;
		n++;
	}
	qsort(m->probes, n, sizeof(*m->probes), cmp_probe);
	m->probe_lo = m->probes[0].addr;
	m->probe_hi = m->probes[n - 1].addr + 1;
	__atomic_store_n(&m->nr_probes, n, __ATOMIC_RELEASE);
}

/* Raise (+1) or lower (-1) a probe's semaphore; an unsigned short in the program's data. */
static void semaphore_add(const struct ut_probe *r, int by)
{
	if (r->semaphore)
		__atomic_add_fetch((uint16_t *)r->semaphore, (uint16_t)by, __ATOMIC_RELAXED);
}

/* Give probe @r the filter the configuration has for its event (libutrace/evfilter.c). */
static void apply_filter(struct ut_probe *r, const struct ut_usdt_probe *p)
{
	char ev[192];

	snprintf(ev, sizeof(ev), "%s:%s", p->provider, p->name);
	ut_evf_follow(ev, &r->filter, &r->fprog);
}

/* Probes whose jumps the current apply installs (one round of the installer for all). */
struct pending {
	struct ut_probe **v;
	uint32_t n, cap;
};

/* Enable (@on) or disable probe @r: its jump, or its int3.  0 or -errno. */
static int switch_probe(struct ut_module *m, struct ut_probe *r, bool on, struct pending *pj)
{
	if (r->mode == UT_PROBE_UNPLANNED)
		ut_usdt_jump_plan(m);
	if (r->mode == UT_PROBE_JUMP && !on)
		return ut_usdt_jump_remove(r);
	if (r->mode == UT_PROBE_JUMP) {
		if (pj->n == pj->cap) {
			uint32_t cap = pj->cap ? 2 * pj->cap : 64;
			struct ut_probe **v = realloc(pj->v, cap * sizeof(struct ut_probe *));

			if (!v)
				return -ENOMEM;
			pj->v = v;
			pj->cap = cap;
		}
		pj->v[pj->n++] = r;
		return 0;
	}
	return ut_patch_byte(r->addr, on ? UT_ARCH_TRAP_BYTE : NOP1);
}

/* Make module @m's probes what the configuration wants; how many changed. */
static int apply_module(struct ut_module *m, struct pending *pj)
{
	int changed = 0, err;

	for (uint32_t i = 0; i < m->nr_probes; i++) {
		struct ut_probe *r = &m->probes[i];
		const struct ut_usdt_probe *p = &m->usdt.v[r->idx];
		bool sel = ut_usdt_selected(ut_rt.cfg.events, p->provider, p->name);
		bool arms = ut_evtrig_arms(p);
		bool want = r->usable && !ut_rt.sites_off && (sel || arms);

		__atomic_store_n(&r->sel, sel, __ATOMIC_RELAXED);
		if (r->usable)
			apply_filter(r, p);
		__atomic_store_n(&r->fast, sel && !arms && !r->strings, __ATOMIC_RELAXED);
		if (want == r->on)
			continue;
		if (want)
			semaphore_add(r, 1); /* before the probe can fire */
		err = switch_probe(m, r, want, pj);
		if (err) {
			if (want)
				semaphore_add(r, -1);
			return err;
		}
		if (!want)
			semaphore_add(r, -1);
		r->on = want;
		r->ever |= want;
		changed++;
	}
	return changed;
}

/* The jumps of @pj installed; those that could not be are int3s instead.  0 or -errno. */
static int install_jumps(struct pending *pj)
{
	int ret = pj->n ? ut_usdt_jump_install(pj->v, pj->n) : 0;

	for (uint32_t i = 0; i < pj->n; i++)
		if (pj->v[i]->mode != UT_PROBE_JUMP && ut_patch_byte(pj->v[i]->addr, UT_ARCH_TRAP_BYTE))
			ret = -EIO;
	free(pj->v);
	return ret == -ETIMEDOUT ? 0 : ret; /* a thread that did not answer: int3s, not an error */
}

/**
 * ut_usdt_apply - enable the probes the configuration's events select, disable the others
 *
 * Under ut_rt.lock, after the configuration or the set of objects changed.
 * Return: how many probes changed, or -1 with errno set.
 */
int ut_usdt_apply(void)
{
	struct pending pj = {0};
	int changed = 0, r = 0;

	ut_procev_apply(); /* the same words enable the process events */
	ut_evtrig_apply(); /* a trigger that got no table does nothing; the probes still apply */
	for (uint32_t i = 0; i < ut_rt.nr_mods && r >= 0; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (!m->alive || !m->nr_probes)
			continue;
		r = apply_module(m, &pj);
		changed += r > 0 ? r : 0;
	}
	if (changed)
		ut_patch_sync();
	if (install_jumps(&pj) && r >= 0)
		r = -EIO;
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return changed;
}

/* The probe at @addr of a live module, or NULL.  Async-signal-safe. */
static const struct ut_probe *find_probe(uint64_t addr, const struct ut_module **mod)
{
	uint32_t n = __atomic_load_n(&ut_rt.nr_mods, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		const struct ut_module *m = ut_rt.mods[i];
		uint32_t lo = 0, hi = __atomic_load_n(&m->nr_probes, __ATOMIC_ACQUIRE);

		if (!m->alive || addr < m->probe_lo || addr >= m->probe_hi)
			continue;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (m->probes[mid].addr == addr) {
				*mod = m;
				return &m->probes[mid];
			}
			if (m->probes[mid].addr < addr)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	return NULL;
}

/*
 * The string at @ptr, at most UT_EV_MAX_STR - 1 bytes and its NUL, into
 * @dst: its length with the NUL, 0 if nothing could be read (the event
 * then says "(fault)").  The process's memory is read through
 * process_vm_readv(), which fails where a load would fault; the read is
 * split at the page boundary so that a string near the end of the last
 * mapped page is still read up to it.
 */
unsigned ut_usdt_copy_string(char *dst, uint64_t ptr)
{
	uint64_t page_end = (ptr | 4095) + 1;
	size_t first = page_end - ptr < UT_EV_MAX_STR - 1 ? page_end - ptr : UT_EV_MAX_STR - 1;
	struct iovec local = {dst, UT_EV_MAX_STR - 1},
		     remote[2] = {{(void *)ptr, first},
				  {(void *)page_end, UT_EV_MAX_STR - 1 - first}};
	ssize_t got;
	unsigned n = 0;

	if (ptr < 4096)
		return 0;
	got = process_vm_readv(ut_rt.pid, &local, 1, remote, first < UT_EV_MAX_STR - 1 ? 2 : 1, 0);
	if (got <= 0)
		return 0;
	while (n < (unsigned)got && dst[n])
		n++;
	if (n == (unsigned)got && n < UT_EV_MAX_STR - 1)
		return 0; /* cut by a fault before its NUL */
	dst[n] = '\0';
	return n + 1;
}

/*
 * The string arguments of probe @p: each one's text appended to @strs, its
 * slot in @slots turned into its __data_loc (offset from the event's
 * start: common fields, @n slots, the strings before it).  Return: the
 * bytes appended.
 */
static unsigned fetch_strings(const struct ut_usdt_probe *p, unsigned n, uint64_t *slots,
			      char *strs)
{
	unsigned used = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned len;

		if (!p->arg[i].is_string)
			continue;
		len = ut_usdt_copy_string(strs + used, slots[i]);
		slots[i] = (uint64_t)len << 16 | (len ? 8 + 8 * n + used : 0);
		used += len;
	}
	return used;
}

/*
 * One PROBE record: the probe's address, then each argument in an 8-byte
 * slot (common/usdt.h's size, sign- or zero-extended), then the text of
 * its string arguments.  Everything is fetched first, into the event as
 * its format lays it out, so that the filter, if any, judges it before
 * anything is written.
 */
static void record_probe(const struct ut_module *m, const struct ut_probe *r, const ucontext_t *uc)
{
	const struct ut_usdt_probe *p = &m->usdt.v[r->idx];
	const struct ut_evf *f = __atomic_load_n(&r->filter, __ATOMIC_ACQUIRE);
	struct ut_thread *t = &ut_self;
	unsigned n = (unsigned)p->nargs, sb = 0, size;
	uint64_t *w, delta, rec[1 + UT_EV_MAX_ARGBYTES / 8];
	uint32_t cpu = ut_cpu();

	if (!ut_tracing_on(t) || !ut_evpid_ok() || !ut_enter(t))
		return;
	for (unsigned i = 0; i < n; i++)
		rec[1 + i] = ut_arch_usdt_fetch(uc, &p->arg[i], m->bias);
	if (r->strings)
		sb = fetch_strings(p, n, rec + 1, (char *)(rec + 1 + n));
	if (f && !ut_evf_passes(f, rec, 8 + 8 * (size_t)n + sb, cpu)) {
		ut_leave(t);
		return;
	}
	size = 16 + ((8 * n + sb + 15) & ~15u);
	w = ut_rec_reserve(t, size, &delta);
	if (w) {
		if (size > 16)
			w[(size - 8) / 8] = 0; /* the padding */
		w[0] = ut_rec_word0(UT_REC_PROBE, cpu, r->addr);
		w[1] = (delta << UT_REC_DELTA_SHIFT) | (uint64_t)sb << 8 | n;
		memcpy(w + 2, rec + 1, 8 * n + sb);
		ut_rec_commit(t, size);
	}
	ut_leave(t);
}

/* From the SIGTRAP handler: true if the trap was one of our probes' int3s. */
bool ut_usdt_trap(ucontext_t *uc)
{
	uint64_t a = ut_arch_trap_addr(uc);
	const struct ut_module *m = NULL;
	const struct ut_probe *r = find_probe(a, &m);

	uint64_t to = ut_usdt_jump_trap(a);

	if (to) { /* the first byte of a jump's window, being installed or removed */
		ut_arch_set_pc(uc, to);
		ut_ool_trap_answers();
		return true;
	}
	if (!r || !__atomic_load_n(&r->ever, __ATOMIC_RELAXED))
		return false; /* not ours: someone else's breakpoint */
	/* a probe disabled meanwhile was an int3 when this thread fetched it: skip the nop all the same */
	ut_usdt_hit(m, r, uc);
	ut_arch_set_pc(uc, a + 1);
	return true;
}

void ut_usdt_hit(const struct ut_module *m, const struct ut_probe *r, const ucontext_t *uc)
{
	if (!__atomic_load_n(&r->on, __ATOMIC_RELAXED) || !ut_rt.ready)
		return;
	if (ut_evtrig_records(&m->usdt.v[r->idx], __atomic_load_n(&r->sel, __ATOMIC_RELAXED)))
		record_probe(m, r, uc);
	ut_evtrig_hit(m, r, uc);
}
