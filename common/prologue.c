// SPDX-License-Identifier: MIT
/* Patched prologues: the portable part (common/prologue.h). */
#include "common/prologue.h"

#include <stdlib.h>
#include <string.h>

#include "common/ehframe.h"
#include "common/symbols.h"

const char *ut_pro_why_text(enum ut_pro_why why)
{
	static const char *const text[UT_PRO_NR] = {
		[UT_PRO_OK] = "patchable",
		[UT_PRO_SHORT] = "shorter than the 5 bytes a patch needs",
		[UT_PRO_UNDECODABLE] = "an instruction the decoder does not know",
		[UT_PRO_RETURN] = "returns or jumps away within its first 5 bytes",
		[UT_PRO_TARGET] = "a branch of its own lands in its first 5 bytes",
		[UT_PRO_FOREIGN] = "another function's branch lands in its first 5 bytes",
		[UT_PRO_JUMPTABLE] = "an indirect jump that is not a readable switch may go anywhere",
		[UT_PRO_INSN] = "a call, system call or loop among its first 5 bytes",
		[UT_PRO_REACH] = "an operand out of reach of the out-of-line slot",
		[UT_PRO_MODULE] = "its object is not patched (dynamic loader, C runtime)",
		[UT_PRO_NOSIZE] = "its size is unknown",
		[UT_PRO_ENTRY] = "an entry point not reached by a call",
		[UT_PRO_CRT] = "C runtime start-up code, not the program's",
		[UT_PRO_INSTALL] = "the patch could not be installed",
		[UT_PRO_BOUNDARY] = "its entry address is not an instruction boundary",
		[UT_PRO_NOENTRY] = "it has no entry address",
		[UT_PRO_OVERLAP] = "its bytes are already moved for another site",
		[UT_PRO_NOFUNC] = "no function symbol holds its entry address",
		[UT_PRO_NOFRAMES] = "stripped, without a readable .eh_frame: the code around it is unknown",
	};

	return why < UT_PRO_NR && text[why] ? text[why] : "unknown";
}

const char *ut_pro_why_text_at(enum ut_pro_why why)
{
	switch (why) { /* the reasons that depend on how many bytes move: 5 here */
	case UT_PRO_SHORT:
		return "too close to the end of its function for the 5-byte jump";
	case UT_PRO_RETURN:
		return "a return or jump away within the 5 bytes the jump replaces";
	case UT_PRO_TARGET:
		return "a branch lands inside the 5 bytes the jump replaces";
	case UT_PRO_FOREIGN:
		return "another function's branch lands inside the 5 bytes the jump replaces";
	case UT_PRO_INSN:
		return "a call, system call or loop within the 5 bytes the jump replaces";
	default:
		return ut_pro_why_text(why);
	}
}

/*
 * The loader and the C runtime: their entry points are not all reached by
 * calls (_start, signal returns, the lazy binder, setjmp and vfork return
 * twice), and the tracer runs on them, as on the libraries the runtime
 * itself uses (libelf and its compressors, capstone).  Matched by file name.
 */
bool ut_pro_module_refused(const char *path)
{
	static const char *const names[] = {"ld-linux", "libc.so", "libc-", "libpthread",
					    "libdl.so", "libgcc_s", "libstdc++", "libutrace",
					    "libcapstone", "libelf", "libz.so", "libzstd"};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(base, names[i], strlen(names[i])))
			return true;
	return false;
}

/* The start files' functions (crt1.o, crti.o, crtbegin.o), linked into every program. */
static bool crt_function(const char *name)
{
	static const char *const crt[] = {"_init", "_fini", "deregister_tm_clones",
					  "register_tm_clones", "__do_global_dtors_aux", "frame_dummy",
					  "__libc_csu_init", "__libc_csu_fini", "_dl_relocate_static_pie"};

	for (size_t i = 0; i < sizeof(crt) / sizeof(crt[0]); i++)
		if (!strcmp(name, crt[i]))
			return true;
	return false;
}

/* Is a site of the sorted @sites inside [lo, hi)? */
static bool has_site(const uint64_t *sites, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (sites[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && sites[a] < hi;
}

/* The branch targets between functions of an object, sorted (ut_pro_targets). */
struct targets {
	uint64_t *v;
	size_t n, cap;
};

static void add_target(void *ctx, uint64_t t)
{
	struct targets *tg = ctx;

	if (tg->n == tg->cap) {
		size_t cap = tg->cap ? 2 * tg->cap : 1024;
		uint64_t *v = realloc(tg->v, cap * sizeof(*v));

		if (!v)
			return;
		tg->v = v;
		tg->cap = cap;
	}
	tg->v[tg->n++] = t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void collect_targets(const struct ut_symtab *st, const struct ut_pro_frames *frames,
			    ut_pro_code_fn code, void *code_ctx, struct targets *tg)
{
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);
		const uint8_t *bytes = s->size ? code(code_ctx, s->addr, s->size) : NULL;

		if (bytes)
			ut_pro_targets(bytes, s->size, s->addr, add_target, tg);
	}
	/* a stripped object: the code no symbol names, each FDE's */
	for (size_t i = 0; frames && i < frames->n; i++) {
		uint64_t lo = frames->v[i].lo, size = frames->v[i].hi - lo;
		const uint8_t *bytes = size ? code(code_ctx, lo, size) : NULL;

		if (bytes)
			ut_pro_targets(bytes, size, lo, add_target, tg);
	}
	if (tg->n)
		qsort(tg->v, tg->n, sizeof(*tg->v), cmp_u64);
}

/* The verdict on one function, given the branches between functions (@tg). */
static enum ut_pro_why judge(const struct ut_sym *s, const uint8_t *bytes,
			     const struct targets *tg, const struct ut_pro_data *data,
			     struct ut_pro_plan *plan)
{
	enum ut_pro_why why;

	if (!strcmp(s->name, "_start"))
		return UT_PRO_ENTRY;
	if (crt_function(s->name))
		return UT_PRO_CRT;
	if (!s->size)
		return UT_PRO_NOSIZE;
	why = ut_pro_plan(bytes, s->size, s->addr, data, plan);
	/* a jump to the entry from elsewhere is a tail call: fine; past it, not */
	if (why == UT_PRO_OK &&
	    has_site(tg->v, tg->n, s->addr + 1, s->addr + plan->skip + plan->moved))
		why = UT_PRO_FOREIGN;
	return why;
}

void ut_pro_walk(const struct ut_symtab *st, const uint64_t *sites, size_t nsites,
		 const struct ut_pro_frames *frames, ut_pro_code_fn code, void *code_ctx,
		 const struct ut_pro_data *data, ut_pro_found_fn cb, void *cb_ctx)
{
	struct targets tg = {0};
	size_t unsited = 0;

	for (size_t i = 0; i < ut_symtab_count(st) && !unsited; i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);

		unsited += !has_site(sites, nsites, s->addr, s->addr + (s->size ? s->size : 1));
	}
	if (unsited) /* an object built with sites throughout needs no sweep */
		collect_targets(st, frames, code, code_ctx, &tg);
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);
		struct ut_pro_plan plan;
		const uint8_t *bytes;

		if (has_site(sites, nsites, s->addr, s->addr + (s->size ? s->size : 1)))
			continue;
		if (strstr(s->name, ".cold"))
			continue; /* a part of another function, entered by a jump */
		memset(&plan, 0, sizeof(plan));
		bytes = s->size ? code(code_ctx, s->addr, s->size) : NULL;
		if (s->size && !bytes && strcmp(s->name, "_start") != 0 && !crt_function(s->name))
			continue; /* not code we can see (an IFUNC's data, a PLT) */
		if (frames && !frames->n) {
			cb(cb_ctx, s, UT_PRO_NOFRAMES, &plan);
			continue;
		}
		cb(cb_ctx, s, judge(s, bytes, &tg, data, &plan), &plan);
	}
	free(tg.v);
}

/* Does [lo, hi) meet one of the @n sorted, disjoint ranges @r (pairs lo, hi)? */
static bool meets(const uint64_t *r, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	while (a < b) { /* the first range ending after lo */
		size_t mid = a + (b - a) / 2;

		if (r[2 * mid + 1] <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && r[2 * a] < hi;
}

/* The verdict on one inlined instance at @at (@prev_end: the end of the last one accepted). */
static enum ut_pro_why judge_at(const struct ut_symtab *st, ut_pro_code_fn code, void *code_ctx,
				const struct targets *tg, const uint64_t *busy, size_t nbusy,
				uint64_t at, uint64_t prev_end, struct ut_pro_at *out)
{
	const struct ut_sym *s = ut_symtab_lookup(st, at);
	const uint8_t *bytes;
	enum ut_pro_why why;

	out->fn = s;
	if (!at)
		return UT_PRO_NOENTRY;
	if (!s || !s->size || at >= s->addr + s->size)
		return UT_PRO_NOFUNC;
	bytes = code(code_ctx, s->addr, s->size);
	if (!bytes)
		return UT_PRO_NOFUNC;
	why = ut_pro_plan_at(bytes, s->size, s->addr, at, &out->plan);
	if (why != UT_PRO_OK)
		return why;
	at = s->addr + out->plan.skip; /* past padding */
	if (at < prev_end || meets(busy, nbusy, at, at + out->plan.moved))
		return UT_PRO_OVERLAP;
	if (has_site(tg->v, tg->n, at + 1, at + out->plan.moved))
		return UT_PRO_FOREIGN;
	return UT_PRO_OK;
}

void ut_pro_walk_at(const struct ut_symtab *st, ut_pro_code_fn code, void *code_ctx,
		    const uint64_t *at, size_t n, const uint64_t *busy, size_t nbusy,
		    struct ut_pro_at *out)
{
	struct targets tg = {0};
	uint64_t prev_end = 0;

	if (n)
		collect_targets(st, NULL, code, code_ctx, &tg);
	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].why = judge_at(st, code, code_ctx, &tg, busy, nbusy, at[i], prev_end, &out[i]);
		if (out[i].why == UT_PRO_OK)
			prev_end = out[i].fn->addr + out[i].plan.skip + out[i].plan.moved;
	}
	free(tg.v);
}

const char *ut_pro_why_text_probe(enum ut_pro_why why)
{
	switch (why) {
	case UT_PRO_SHORT:
		return "too close to the end of its function for a 5-byte jump";
	case UT_PRO_RETURN:
		return "a return or jump away among the instructions a jump would cover";
	case UT_PRO_TARGET:
		return "a branch lands among the instructions a jump would cover";
	case UT_PRO_FOREIGN:
		return "another function's branch lands among the instructions a jump would cover";
	case UT_PRO_INSN:
		return "a call, system call or loop among the instructions a jump would cover";
	case UT_PRO_OVERLAP:
		return "another probe or site among the instructions a jump would cover";
	case UT_PRO_JUMPTABLE:
		return "its function has an indirect jump (jump table?) that may land among them";
	case UT_PRO_NOFRAMES:
		return "stripped object without a readable .eh_frame: the code around it is unknown";
	case UT_PRO_NOFUNC:
		return "no function symbol with a size holds it";
	default:
		return ut_pro_why_text(why);
	}
}

/* What a probe's window must not meet: the other sites, the windows before, other functions' branches. */
struct probe_reject {
	const uint64_t *busy;
	size_t nbusy;
	const struct targets *tg;
	uint64_t at, prev_end;
};

static enum ut_pro_why probe_reject(void *ctx, uint64_t lo, uint64_t hi)
{
	const struct probe_reject *r = ctx;

	if (lo < r->prev_end || meets(r->busy, r->nbusy, lo, r->at) ||
	    meets(r->busy, r->nbusy, r->at + 1, hi))
		return UT_PRO_OVERLAP;
	if (has_site(r->tg->v, r->tg->n, lo + 1, hi))
		return UT_PRO_FOREIGN;
	return UT_PRO_OK;
}

/* The code holding @at: its function symbol's, else (a stripped object) its FDE's; false if none. */
static bool code_range(const struct ut_symtab *st, const struct ut_pro_frames *frames, uint64_t at,
		       uint64_t *lo, uint64_t *size)
{
	const struct ut_sym *s = ut_symtab_lookup(st, at);
	size_t a = 0, b = frames ? frames->n : 0;

	if (s && s->size && at < s->addr + s->size) {
		*lo = s->addr;
		*size = s->size;
		return true;
	}
	while (a < b) { /* the first FDE starting after at */
		size_t mid = a + (b - a) / 2;

		if (frames->v[mid].lo <= at)
			a = mid + 1;
		else
			b = mid;
	}
	if (!a || at >= frames->v[a - 1].hi)
		return false;
	*lo = frames->v[a - 1].lo;
	*size = frames->v[a - 1].hi - *lo;
	return true;
}

void ut_pro_walk_probes(const struct ut_symtab *st, const struct ut_pro_frames *frames,
			ut_pro_code_fn code, void *code_ctx, const uint64_t *at, size_t n,
			const uint64_t *busy, size_t nbusy, struct ut_pro_probe_at *out)
{
	struct targets tg = {0};
	struct probe_reject rj = {.busy = busy, .nbusy = nbusy, .tg = &tg};

	if (n && (!frames || frames->n))
		collect_targets(st, frames, code, code_ctx, &tg);
	for (size_t i = 0; i < n; i++) {
		uint64_t lo = 0, size = 0;
		const uint8_t *bytes = code_range(st, frames, at[i], &lo, &size)
					       ? code(code_ctx, lo, size) : NULL;

		memset(&out[i], 0, sizeof(out[i]));
		out[i].lo = lo;
		if (frames && !frames->n) {
			out[i].why = UT_PRO_NOFRAMES;
			continue;
		}
		if (!bytes) {
			out[i].why = UT_PRO_NOFUNC;
			continue;
		}
		rj.at = at[i];
		out[i].why = ut_pro_plan_probe(bytes, size, lo, at[i], probe_reject, &rj,
					       &out[i].plan, &out[i].nop);
		if (out[i].why == UT_PRO_OK)
			rj.prev_end = lo + out[i].plan.skip + out[i].plan.moved;
	}
	free(tg.v);
}
