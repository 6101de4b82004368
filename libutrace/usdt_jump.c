// SPDX-License-Identifier: MIT
/*
 * USDT probes enabled with a jump instead of an int3: a few nanoseconds a
 * hit instead of a signal delivery (docs/architecture.md, USDT probes).
 *
 * A probe is a 1-byte nop in the middle of a function, where every
 * register, the flags and the red zone are live.  Enabling it writes a
 * 5-byte `jmp slot` over a window of whole instructions holding the nop
 * (common/prologue.h, ut_pro_plan_probe: the nop and what follows it, or
 * from a few instructions before it when a branch lands right after it);
 * the slot (arch.h, "USDT probes enabled with a jump") runs the
 * instructions moved from before the nop, steps below the red zone, calls
 * utrace_usdt_tramp (which saves the registers and records the probe as
 * the int3's handler would), steps back, runs the instructions moved from
 * after the nop and jumps back.  Disabling puts the window's bytes back:
 * a disabled probe is the compiler's nop again; the slot stays for the
 * next time.
 *
 * The window is installed by the out-of-line installer (prologue.c: int3
 * on its first byte, threads inside the moved bytes moved to the slot,
 * then the jump) and removed in the same order (int3, the rest, the first
 * byte); a thread trapping on the first byte meanwhile resumes in the
 * slot.  A probe whose window cannot be moved, or whose install fails,
 * stays an int3 (libutrace/usdt.c), with the reason: nothing is lost.
 *
 * Planned per object the first time one of its probes is enabled: the
 * plan sweeps every function of the object for branches into the windows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ehframe.h"
#include "common/prologue.h"
#include "common/symbols.h"
#include "libutrace/internal.h"
#include "libutrace/ool.h"

#define SLOT_SIZE 224            /* UT_ARCH_USDT_CALL + the block + UT_PRO_SLOT, rounded */
#define AT_BEFORE 16             /* where the instructions moved from before the nop go */
#define AT_AFTER (UT_ARCH_USDT_CALL + UT_ARCH_USDT_BLOCK)
#define WHY_ASKED 0xff           /* UTRACE_USDT_INT3 asks for the int3 */
#define WHY_XSAVE 0xfe           /* the processor lacks xsave (vector registers) or lahf (flags) */


static const char *why_text(unsigned why)
{
	switch (why) {
	case WHY_ASKED:
		return "UTRACE_USDT_INT3 asks for it";
	case WHY_XSAVE:
		return "the processor lacks xsave or lahf, which the jump's trampoline needs";
	default:
		return ut_pro_why_text_probe((enum ut_pro_why)why);
	}
}

/* Test hook: UTRACE_TEST_USDT=PATH gets one line per probe saying how it is enabled. */
static void tell(const struct ut_module *m, const struct ut_probe *r)
{
	const char *path = getenv("UTRACE_TEST_USDT");
	const struct ut_usdt_probe *p = &m->usdt.v[r->idx];
	char line[320];
	int fd, n;

	if (!path || !*path)
		return;
	if (r->mode == UT_PROBE_JUMP)
		n = snprintf(line, sizeof(line), "%s:%s jump\n", p->provider, p->name);
	else
		n = snprintf(line, sizeof(line), "%s:%s int3: %s\n", p->provider, p->name,
			     why_text(r->why));
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (n > 0 && write(fd, line, (size_t)n) != n)
		ut_log("UTRACE_TEST_USDT: %s: a short write", path);
	close(fd);
}

/* Why no probe of the process can have a jump, or 0. */
static unsigned refused_everywhere(void)
{
	const char *e = getenv("UTRACE_USDT_INT3");

	if (e && *e && strcmp(e, "0") != 0)
		return WHY_ASKED;
	return ut_arch_usdt_jump_ok() ? 0 : WHY_XSAVE;
}

static int cmp_range(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The bytes other sites own in @m's object, sorted pairs (lo, hi): its
 * compiler sites, its probes' nops, the moved bytes of its patched
 * prologues and inlined instances.
 */
static uint64_t *busy_ranges(const struct ut_module *m, size_t *n)
{
	size_t cap = m->nr_sites + m->nr_probes, k = 0;
	uint64_t *r;

	for (uint32_t i = 0; i < ut_rt.nr_mods; i++)
		if (ut_rt.mods[i]->of == m && ut_rt.mods[i]->kind_data)
			cap += ut_rt.mods[i]->nr_sites;
	r = malloc((cap + 1) * 2 * sizeof(*r));
	if (!r)
		return NULL;
	for (uint32_t i = 0; i < m->nr_sites; i++, k++) {
		r[2 * k] = m->sites[i].addr;
		r[2 * k + 1] = m->sites[i].addr + m->sites[i].len;
	}
	for (uint32_t i = 0; i < m->nr_probes; i++, k++) {
		r[2 * k] = m->probes[i].addr;
		r[2 * k + 1] = m->probes[i].addr + 1;
	}
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		const struct ut_module *o = ut_rt.mods[i];
		const struct ut_ool *e = o->kind_data;

		if (o->of != m || !e || (o->kind != UT_KIND_PROLOGUE && o->kind != UT_KIND_INLINED))
			continue;
		for (uint32_t j = 0; j < o->nr_sites; j++, k++) {
			r[2 * k] = e[j].entry + e[j].plan.skip;
			r[2 * k + 1] = e[j].entry + e[j].plan.skip + e[j].plan.moved;
		}
	}
	qsort(r, k, 2 * sizeof(*r), cmp_range);
	*n = k;
	return r;
}

/* Part of @p: its moved instructions [from, to), as a plan of their own. */
static struct ut_pro_plan sub_plan(const struct ut_pro_plan *p, unsigned from, unsigned to)
{
	struct ut_pro_plan q = {0};
	unsigned base = from < p->nr ? p->off[from] : p->moved;

	q.skip = p->skip + base;
	q.nr = (uint8_t)(to - from);
	for (unsigned i = from; i < to; i++)
		q.off[i - from] = (uint8_t)(p->off[i] - base);
	q.moved = (uint8_t)((to < p->nr ? p->off[to] : p->moved) - base);
	q.call = to == p->nr && p->call;
	return q;
}

/*
 * The slot's code at @slot for window @o holding the probe's nop as moved
 * instruction @nop (arch.h's layout) into @code; @o->map filled.  False if
 * an instruction cannot move there.
 */
static bool slot_code(struct ut_ool *o, unsigned nop, uint64_t slot, uint8_t *code)
{
	struct ut_pro_plan before = sub_plan(&o->plan, 0, nop),
			   after = sub_plan(&o->plan, nop + 1, o->plan.nr);
	uint8_t map[UT_PRO_MAX_INSN];
	size_t len = 0;
	int32_t rel;

	if (ut_pro_relocate(&after, (const uint8_t *)o->entry, o->entry, slot + AT_AFTER,
			    code + AT_AFTER, &len, map) != UT_PRO_OK)
		return false;
	for (unsigned i = nop + 1; i < o->plan.nr; i++)
		o->map[i] = (uint8_t)(AT_AFTER + map[i - nop - 1]);
	o->map[nop] = UT_ARCH_USDT_CALL; /* a thread stopped at the nop: the probe's hit */
	ut_arch_usdt_block(code + UT_ARCH_USDT_CALL, slot + UT_ARCH_USDT_CALL, slot);
	o->jump_to = slot + UT_ARCH_USDT_CALL;
	if (!nop)
		return true;
	if (ut_pro_relocate(&before, (const uint8_t *)o->entry, o->entry, slot + AT_BEFORE,
			    code + AT_BEFORE, &len, map) != UT_PRO_OK ||
	    AT_BEFORE + len > UT_ARCH_USDT_CALL)
		return false;
	for (unsigned i = 0; i < nop; i++)
		o->map[i] = (uint8_t)(AT_BEFORE + map[i]);
	/* its jump back to the nop goes to the call block instead */
	rel = (int32_t)(UT_ARCH_USDT_CALL - (AT_BEFORE + len));
	memcpy(code + AT_BEFORE + len - 4, &rel, 4);
	o->jump_to = slot + AT_BEFORE;
	return true;
}

/* Probe @r's jump: its window @a (in function @fn) and slot written.  False: an int3 then. */
static bool make_jump(struct ut_module *m, struct ut_probe *r, const struct ut_pro_probe_at *a)
{
	struct ut_usdt_jump *j = calloc(1, sizeof(*j));
	struct ut_ool *o = calloc(1, sizeof(*o));
	uint8_t code[SLOT_SIZE];
	uint64_t tramp = (uint64_t)utrace_usdt_tramp, slot, data = (uint64_t)j;

	if (!j || !o || a->plan.moved > sizeof(j->orig) || (a->plan.call && ut_arch_shadow_stack()))
		goto fail;
	*o = (struct ut_ool){.entry = a->lo, .plan = a->plan};
	slot = ut_ool_slot_for(o->entry + o->plan.skip, SLOT_SIZE);
	memset(code, UT_ARCH_TRAP_BYTE, sizeof(code));
	memcpy(code, &tramp, 8);
	memcpy(code + 8, &data, 8);
	if (!slot || !slot_code(o, a->nop, slot, code) || ut_ool_poke(slot, code, sizeof(code)))
		goto fail;
	o->slot = slot;
	memcpy(j->orig, (const void *)(o->entry + o->plan.skip), o->plan.moved);
	j->ool = o;
	j->m = m;
	j->r = r;
	r->jump = j;
	return true;
fail:
	free(j);
	free(o);
	return false;
}

/* @len bytes at @addr if the object maps them (its .eh_frame is data): ut_eh_read_fn. */
static const uint8_t *mapped(void *ctx, uint64_t addr, size_t len)
{
	const struct ut_ool_segs *g = ctx;

	for (int i = 0; i < g->nr; i++)
		if (addr >= g->rlo[i] && addr + len <= g->rhi[i] && addr + len > addr)
			return (const uint8_t *)addr;
	return NULL;
}

/*
 * Decide @m's probes' modes: a jump where the window and slot could be
 * made.  A stripped object's code that .dynsym does not name is known
 * from its FDEs (common/prologue.h).
 */
static void plan_probes(struct ut_module *m, struct ut_symtab *st)
{
	uint64_t *at = calloc(m->nr_probes + 1, sizeof(*at)), *busy = NULL;
	struct ut_pro_probe_at *out = calloc(m->nr_probes + 1, sizeof(*out));
	struct ut_ool_segs g;
	struct ut_eh_range *eh = NULL;
	struct ut_pro_frames frames = {0};
	bool stripped = !ut_elf_has_symtab(m->path);
	size_t nbusy = 0;

	if (at && out)
		busy = busy_ranges(m, &nbusy);
	if (busy) {
		for (uint32_t i = 0; i < m->nr_probes; i++)
			at[i] = m->probes[i].addr;
		ut_ool_segments(m, &g);
		if (stripped) {
			long k = ut_eh_ranges(g.eh_hdr, mapped, &g, &eh);

			frames = (struct ut_pro_frames){eh, k > 0 ? (size_t)k : 0};
		}
		ut_pro_walk_probes(st, stripped ? &frames : NULL, ut_ool_code, &g, at, m->nr_probes,
				   busy, nbusy, out);
		free(eh);
	}
	for (uint32_t i = 0; i < m->nr_probes; i++) {
		struct ut_probe *r = &m->probes[i];

		if (!r->usable)
			continue;
		r->why = busy ? (uint8_t)out[i].why : UT_PRO_INSTALL;
		if (busy && out[i].why == UT_PRO_OK && !make_jump(m, r, &out[i]))
			r->why = UT_PRO_INSTALL;
		r->mode = r->why == UT_PRO_OK ? UT_PROBE_JUMP : UT_PROBE_INT3;
		tell(m, r);
	}
	free(at);
	free(out);
	free(busy);
}

void ut_usdt_jump_plan(struct ut_module *m)
{
	unsigned why = refused_everywhere();
	struct ut_symtab *st = NULL;

	if (m->usdt_planned)
		return;
	m->usdt_planned = true;
	if (!why && !(st = ut_sites_symbols(m)))
		why = UT_PRO_NOFUNC;
	if (!why) {
		plan_probes(m, st);
		ut_symtab_free(st);
		return;
	}
	for (uint32_t i = 0; i < m->nr_probes; i++) {
		struct ut_probe *r = &m->probes[i];

		if (!r->usable)
			continue;
		r->mode = UT_PROBE_INT3;
		r->why = (uint8_t)why;
		tell(m, r);
	}
}

int ut_usdt_jump_install(struct ut_probe **v, uint32_t n)
{
	struct ut_ool **o = calloc(n + 1, sizeof(struct ut_ool *));
	int ret;

	if (!o)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		o[i] = v[i]->jump->ool;
		o[i]->state = UT_OOL_PENDING;
	}
	ret = ut_ool_install(o, n);
	for (uint32_t i = 0; i < n; i++) {
		if (o[i]->state == UT_OOL_READY)
			continue;
		v[i]->mode = UT_PROBE_INT3; /* its window is as it was: the int3 then */
		v[i]->why = UT_PRO_INSTALL;
		tell(v[i]->jump->m, v[i]);
	}
	free(o);
	return ret;
}

int ut_usdt_jump_remove(struct ut_probe *r)
{
	const struct ut_usdt_jump *j = r->jump;
	struct ut_ool *o = j->ool;
	uint64_t e = o->entry + o->plan.skip;
	const uint8_t trap = UT_ARCH_TRAP_BYTE;
	int ret;

	/* a thread trapping at e meanwhile resumes in the slot (ut_usdt_jump_trap) */
	ret = ut_ool_poke(e, &trap, 1);
	ut_patch_sync();
	ret |= ut_ool_poke(e + 1, j->orig + 1, o->plan.moved - 1u);
	ut_patch_sync();
	ret |= ut_ool_poke(e, j->orig, 1);
	ut_patch_sync();
	o->state = UT_OOL_PENDING;
	return ret ? -EIO : 0;
}

void ut_usdt_jump_window(const struct ut_probe *r, uint64_t *lo, uint64_t *hi)
{
	const struct ut_ool *o = r->jump ? r->jump->ool : NULL;

	*lo = o ? o->entry + o->plan.skip : r->addr;
	*hi = o ? o->entry + o->plan.skip + o->plan.moved : r->addr + 1;
}

bool ut_usdt_jump_owns(const struct ut_module *m, uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < m->nr_probes; i++) {
		uint64_t a, b;

		ut_usdt_jump_window(&m->probes[i], &a, &b);
		if (a < hi && lo < b)
			return true;
	}
	return false;
}

uint64_t ut_usdt_jump_trap(uint64_t a)
{
	uint32_t n = __atomic_load_n(&ut_rt.nr_mods, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		const struct ut_module *m = ut_rt.mods[i];
		uint32_t lo = 0, hi = __atomic_load_n(&m->nr_probes, __ATOMIC_ACQUIRE);

		if (!m->alive || !hi || a + 16 < m->probe_lo || a >= m->probe_hi)
			continue;
		while (lo < hi) { /* the first probe at or after a: a window starts at most 10 bytes before */
			uint32_t mid = lo + (hi - lo) / 2;

			if (m->probes[mid].addr < a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < m->nr_probes && m->probes[lo].addr <= a + 16; lo++) {
			const struct ut_usdt_jump *j = __atomic_load_n(&m->probes[lo].jump, __ATOMIC_ACQUIRE);

			if (j && j->ool->entry + j->ool->plan.skip == a)
				return j->ool->jump_to;
		}
	}
	return 0;
}

void ut_usdt_jump_slow(const struct ut_usdt_jump *j, uint64_t *frame)
{
	ucontext_t uc;

	frame[UT_ARCH_USDT_NREGS - 1] = j->r->addr + 1; /* the unwinders' return address */
	ut_arch_usdt_context(frame, j->r->addr + 1, &uc); /* as after the int3 */
	ut_usdt_hit(j->m, j->r, &uc);
}
