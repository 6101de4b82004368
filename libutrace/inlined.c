// SPDX-License-Identifier: MIT
/*
 * Inlined instances as sites (-O inlined): each place where the compiler
 * inlined a function, found in the object's DWARF, gets a site of its own
 * that the filters, commands, instances and tracers treat as the function
 * it came from.
 *
 * An instance's entry E is in the middle of the function F that holds it,
 * where every register, the flags and F's red zone (the 128 bytes below
 * %rsp a leaf function may use without moving %rsp) are live.  A call
 * there would push its return address into the red zone, so E becomes a
 * jump to a slot, and the site lives in the slot:
 *
 *   slot + 0:   F's start (48 bits: the parent the tracers record), and
 *               above it how many inlined bodies hold this one (nesting)
 *   slot + 8:   lea -128(%rsp),%rsp         step below the red zone
 *   slot + 13:  the site: nop5 / call stub  toggled by the patcher
 *   slot + 18:  lea 128(%rsp),%rsp          back (lea: the flags stay)
 *   slot + 26:  the instructions moved from E, then jmp E + moved
 *
 * The module's stub always leads to utrace_inl_caller, whatever the
 * tracer: it saves every caller-saved register and the flags, and
 * ut_inlined_hit (tracers/inlined.c) records the hit as the tracer in
 * force does.  Records carry the site's address as the function: readers
 * name it from the session's "names.<index>" (the inlined function's name
 * for each site), logged in "modules" like a symbol snapshot.
 *
 * Slots are written when the module is made (nothing runs them before E
 * is patched); E is patched the first time the site is wanted, by the
 * out-of-line installer (prologue.c: int3 first, threads inside the moved
 * bytes moved to the slot, then the jump), and stays a jump.
 *
 * The DWARF is read by a plugin, libutrace-dwarf.so beside the runtime,
 * loaded the first time the option asks: libdw and its compressors cost
 * every traced program its start-up otherwise.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/filter.h"
#include "common/inlined.h"
#include "common/prologue.h"
#include "common/symbols.h"
#include "common/symsnap.h"
#include "libutrace/internal.h"
#include "libutrace/ool.h"

#define HDR_PARENT 0     /* F's start */
#define HDR_CODE 8       /* where E jumps to */
#define HDR_SITE 13      /* the site */
#define HDR_MOVED 26     /* the moved instructions */
#define SLOT_SIZE 128    /* HDR_MOVED + UT_PRO_SLOT, rounded up */

typedef const struct ut_inltab *(*inlined_of_fn)(const char *path);

/* The plugin's reader of an object's inlined instances, or NULL (said once). */
static inlined_of_fn plugin(void)
{
	static int state; /* 0: not tried, 1: loaded, -1: not there */
	static inlined_of_fn fn;
	char path[PATH_MAX];
	const char *slash;
	Dl_info di;
	void *h;

	if (state)
		return fn;
	state = -1;
	if (!dladdr((void *)plugin, &di) || !di.dli_fname || !(slash = strrchr(di.dli_fname, '/')))
		return NULL;
	snprintf(path, sizeof(path), "%.*s/libutrace-dwarf.so", (int)(slash - di.dli_fname),
		 di.dli_fname);
	/* libc's dlopen: the runtime's own (dlopen.c) takes the lock held here */
	void *(*open_lib)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");

	h = (open_lib ? open_lib : dlopen)(path, RTLD_NOW | RTLD_LOCAL);
	if (h)
		*(void **)&fn = dlsym(h, "utrace_plugin_inlined_of");
	if (!fn)
		ut_log("-O inlined: cannot load %s (%s): inlined instances are not traced", path,
		       h ? "no reader in it" : dlerror());
	state = fn ? 1 : -1;
	return fn;
}

/* An instance being made a site: its entry and the verdict on it. */
struct cand {
	uint64_t at;
	const struct ut_inl *v;
	struct ut_pro_at j;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The bytes other sites own in @m's object, sorted pairs (lo, hi): its
 * compiler sites, its patched prologues' moved bytes, its USDT probes.
 */
static uint64_t *busy_ranges(const struct ut_module *m, size_t *n)
{
	size_t cap = m->nr_sites + m->nr_probes, k = 0;
	uint64_t *r;

	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) /* its patched prologues: a module a form */
		if (ut_rt.mods[i]->of == m && ut_rt.mods[i]->kind == UT_KIND_PROLOGUE)
			cap += ut_rt.mods[i]->nr_sites;
	r = malloc((cap + 1) * 2 * sizeof(*r));
	if (!r)
		return NULL;
	for (uint32_t i = 0; i < m->nr_sites; i++, k++) {
		r[2 * k] = m->sites[i].addr;
		r[2 * k + 1] = m->sites[i].addr + m->sites[i].len;
	}
	for (uint32_t i = 0; i < m->nr_probes; i++, k++) /* a probe's nop, or its jump's window */
		ut_usdt_jump_window(&m->probes[i], &r[2 * k], &r[2 * k + 1]);
	for (uint32_t j = 0; j < ut_rt.nr_mods; j++) {
		const struct ut_module *pro = ut_rt.mods[j];

		if (pro->of != m || pro->kind != UT_KIND_PROLOGUE)
			continue;
		for (uint32_t i = 0; i < pro->nr_sites; i++, k++) {
			const struct ut_ool *e = &((const struct ut_ool *)pro->kind_data)[i];

			r[2 * k] = e->entry;
			r[2 * k + 1] = e->entry + e->plan.skip + e->plan.moved;
		}
	}
	qsort(r, k, 2 * sizeof(*r), cmp_u64);
	*n = k;
	return r;
}

/* The instances of @t that can be sites in @m (run-time entries), judged; their count. */
static size_t candidates(const struct ut_module *m, const struct ut_inltab *t,
			 const struct ut_symtab *st, struct cand **out)
{
	struct cand *c = calloc(t->n + 1, sizeof(*c));
	uint64_t *at = calloc(t->n + 1, sizeof(*at)), *busy;
	struct ut_pro_at *j = calloc(t->n + 1, sizeof(*j));
	struct ut_ool_segs g;
	size_t n = 0, nbusy = 0;

	busy = c && at && j ? busy_ranges(m, &nbusy) : NULL;
	if (!busy) {
		free(c);
		free(at);
		free(j);
		return 0;
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].entry)
			c[n++] = (struct cand){.at = t->v[i].entry + m->bias, .v = &t->v[i]};
	qsort(c, n, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < n; i++)
		at[i] = c[i].at;
	ut_ool_segments(m, &g);
	ut_pro_walk_at(st, ut_ool_code, &g, at, n, busy, nbusy, j);
	for (size_t i = 0; i < n; i++)
		c[i].j = j[i];
	free(at);
	free(j);
	free(busy);
	*out = c;
	return n;
}

/* Write @e's slot at @slot: the header, then its moved instructions.  False if they cannot move. */
static bool write_slot(struct ut_ool *e, uint64_t slot, unsigned nest)
{
	uint64_t parent = e->entry | (uint64_t)(nest > 0xff ? 0xff : nest) << 48;
	static const uint8_t down[5] = {0x48, 0x8d, 0x64, 0x24, 0x80};
	static const uint8_t up[8] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	uint8_t code[SLOT_SIZE];
	size_t len = 0;

	memset(code, UT_ARCH_TRAP_BYTE, sizeof(code));
	memcpy(code + HDR_PARENT, &parent, 8);
	memcpy(code + HDR_CODE, down, sizeof(down));
	ut_arch_make_nop(code + HDR_SITE, UT_ARCH_CALL_SIZE);
	memcpy(code + HDR_SITE + UT_ARCH_CALL_SIZE, up, sizeof(up));
	if (e->plan.call && ut_arch_shadow_stack())
		return false; /* a moved call returns to an address it did not push */
	if (ut_pro_relocate(&e->plan, (const uint8_t *)e->entry, e->entry, slot + HDR_MOVED,
			    code + HDR_MOVED, &len, e->map) != UT_PRO_OK)
		return false;
	if (ut_ool_poke(slot, code, sizeof(code)))
		return false;
	e->slot = slot + HDR_MOVED;
	e->jump_to = slot + HDR_CODE;
	return true;
}

/* The accepted candidates of @c with slots written: entries and names, in site order. */
static size_t make_slots(struct cand *c, size_t n, struct ut_ool *e, const char **names)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t slot;

		if (c[i].j.why != UT_PRO_OK)
			continue;
		e[k] = (struct ut_ool){.entry = c[i].j.fn->addr, .plan = c[i].j.plan};
		slot = ut_ool_slot_for(c[i].at, SLOT_SIZE);
		if (!slot || !write_slot(&e[k], slot, c[i].v->depth ? c[i].v->depth - 1 : 0))
			continue;
		names[k++] = c[i].v->func;
	}
	return k;
}

/* The module of @m's inlined instances, made and published; NULL if none. */
static struct ut_module *make_module(struct ut_module *m, struct ut_ool *e, const char **names,
				     size_t n)
{
	uint64_t *sites = malloc((n + 1) * sizeof(*sites));
	struct ut_module *p = NULL;

	if (sites) {
		for (size_t i = 0; i < n; i++)
			sites[i] = e[i].jump_to + (HDR_SITE - HDR_CODE);
		ut_ool_sort_sites(e, names, sites, n); /* slots come from several areas */
		p = ut_ool_module(m, UT_KIND_INLINED, e, n, sites, names,
				  (uint64_t)utrace_inl_caller);
	}
	free(sites);
	if (p)
		ut_ool_log_names(p, names, NULL);
	return p;
}

/* Give @m's inlined instances sites. */
static void inline_module(struct ut_module *m, inlined_of_fn of)
{
	const struct ut_inltab *t = of(m->path);
	struct ut_symtab *st;
	struct cand *c = NULL;
	struct ut_ool *e = NULL;
	const char **names = NULL;
	size_t n, k = 0;

	if (!t || !t->n)
		return;
	st = ut_sites_symbols(m);
	n = st ? candidates(m, t, st, &c) : 0;
	if (n) {
		e = calloc(n, sizeof(*e));
		names = calloc(n, sizeof(*names));
	}
	if (e && names)
		k = make_slots(c, n, e, names);
	if (k && make_module(m, e, names, k))
		e = NULL; /* the module's now */
	free(e);
	free(names);
	free(c);
	ut_symtab_free(st);
}

/**
 * ut_inlined_sync - give the inlined instances of every named object sites
 *
 * With -O inlined, once per object.  Under ut_rt.lock.
 */
void ut_inlined_sync(void)
{
	uint32_t n = ut_rt.nr_mods;
	inlined_of_fn of;

	if (!ut_rt.cfg.inlined || !(of = plugin()))
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (m->kind != UT_KIND_COMPILER || !m->alive || m->unnamed || m->inl_done ||
		    ut_pro_module_refused(m->path) || !m->path[0])
			continue;
		m->inl_done = true;
		inline_module(m, of);
	}
}

