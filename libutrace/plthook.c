// SPDX-License-Identifier: MIT
/*
 * Library calls: calls through the PLT and the GOT (lazy binding, BIND_NOW,
 * -fno-plt) of the program and of every shared object, traced as calls of
 * the library function they reach, without touching the library's text.
 *
 * Every object calls another's functions through its own GOT slots
 * (R_X86_64_JUMP_SLOT for PLT calls, R_X86_64_GLOB_DAT for -fno-plt ones).
 * Each function reached that way gets a hook: the function's address in the
 * object defining it (what records carry, so readers name it from that
 * object's symbols as any function), the code to continue to (what the
 * slot holds once bound; for a slot still waiting for lazy binding, what
 * the dynamic linker would bind it to: dlvsym with the slot's version),
 * and a stub that enters the tracer (arch/x86_64/plt_stub.c).  Turning the
 * function on points all of its GOT slots at the stub, off points them back
 * at the function: one aligned store each (slots in RELRO get a short
 * read-write window).  A slot still lazy when the function is turned on is
 * bound by that store, so the dynamic linker never rewrites it.
 *
 * Hooks are sites of kind UT_KIND_LIBCALL, held by a "hooks module" of
 * that kind per defining object and scan (the defining object's path, name
 * and bias), so filters, :mod:, graph filters, commands,
 * instances and live control treat them as any site.  Not hooked:
 *   - a function that has a site of its own (a compiler site, or a patched
 *     prologue): the site already sees every call, through the PLT or not,
 *     so each call is recorded once, by the site;
 *   - functions of the dynamic loader and of libutrace.so (the functions it
 *     interposes: dlopen, exec*, the unwinder's entries...);
 *   - functions that return twice (setjmp, vfork, getcontext: gcc's
 *     returns_twice list): a hooked return address would be saved by them
 *     and returned through a second time; and __libc_start_main and
 *     __cxa_finalize, the start and exit glue (never_hooked());
 *   - GOT slots of the loader and of libutrace.so.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/pltsyms.h"
#include "common/symbols.h"
#include "libutrace/internal.h"
#include "libutrace/plthook.h"

#define MAX_TEXT 4
#define MAX_NEEDED 64

/* An object's dynamic section and segments, as the loader left them in memory. */
struct dynview {
	uint64_t bias;
	const ElfW(Sym) *sym;
	const char *str;
	const uint32_t *gnu_hash;
	const ElfW(Rela) *rela, *jmprel;
	size_t nrela, njmprel;
	const ElfW(Half) *versym;
	const ElfW(Verneed) *verneed;
	uint64_t relro_lo, relro_hi;
	uint64_t text_lo[MAX_TEXT], text_hi[MAX_TEXT];
	int ntext;
	const char *path;       /* its module's (NULL: libutrace.so) */
	uint64_t soname;        /* DT_SONAME (a string table offset, 0 if none) */
	uint64_t needed[MAX_NEEDED]; /* DT_NEEDED, in order */
	int nneeded;
	bool reached;           /* scratch: in the closure being computed */
	bool runtime;           /* loaded for libutrace.so only */
};

/* One scan: every object's view, and the hooks it made. */
struct pass {
	struct dynview *v;
	size_t nv, capv;
	struct ut_plt_fn **fresh;
	uint32_t nfresh, capfresh;
	struct ut_symtab **names; /* by module index: the defining objects' symbols, read once */
	uint32_t nr_names;
};

/* Every hook, and an open-addressing index of them by ip. */
static struct ut_plt_fn **fns;
static uint32_t nr_fns, cap_fns;
static uint32_t *index_of; /* slot: fns index + 1, 0 = empty */
static uint32_t index_cap;

static int grow(void **v, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	p = realloc(*v, (size_t)n * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = n;
	return 0;
}

static uint32_t hash_ip(uint64_t ip, uint32_t cap)
{
	return (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* The hook of the function at @ip in a live object (a dlclose'd one's may be loaded again there). */
static struct ut_plt_fn *find_fn(uint64_t ip)
{
	for (uint32_t h = index_cap ? hash_ip(ip, index_cap) : 0; index_cap && index_of[h];
	     h = (h + 1) & (index_cap - 1)) {
		struct ut_plt_fn *fn = fns[index_of[h] - 1];

		if (fn->ip == ip && ut_rt.mods[fn->def]->alive)
			return fn;
	}
	return NULL;
}

static int index_rebuild(uint32_t cap)
{
	uint32_t *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	free(index_of);
	index_of = n;
	index_cap = cap;
	for (uint32_t i = 0; i < nr_fns; i++) {
		uint32_t h = hash_ip(fns[i]->ip, cap);

		while (index_of[h])
			h = (h + 1) & (cap - 1);
		index_of[h] = i + 1;
	}
	return 0;
}

static int add_fn(struct ut_plt_fn *fn)
{
	if (grow((void **)&fns, &cap_fns, nr_fns + 1, sizeof(struct ut_plt_fn *)))
		return -ENOMEM;
	fns[nr_fns++] = fn;
	if (2 * nr_fns > index_cap)
		return index_rebuild(index_cap ? 2 * index_cap : 256);
	uint32_t h = hash_ip(fn->ip, index_cap);

	while (index_of[h])
		h = (h + 1) & (index_cap - 1);
	index_of[h] = nr_fns;
	return 0;
}

/* A live object (not a hooks module) loaded at @bias. */
static struct ut_module *module_at(uint64_t bias)
{
	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (m->alive && m->kind != UT_KIND_LIBCALL && m->bias == bias)
			return m;
	}
	return NULL;
}

static bool is_loader(const struct ut_module *m)
{
	const char *base = strrchr(m->path, '/');

	return !strncmp(base ? base + 1 : m->path, "ld-linux", 8);
}

/* A dynamic-section address: relocated by the loader already, or not (then add the bias). */
static const void *dyn_ptr(uint64_t v, uint64_t bias)
{
	return (const void *)(v < bias ? v + bias : v);
}

static void read_dynamic(struct dynview *dv, const ElfW(Dyn) *d)
{
	size_t relasz = 0, pltsz = 0;

	for (; d->d_tag != DT_NULL; d++) {
		uint64_t v = d->d_un.d_ptr;

		switch (d->d_tag) {
		case DT_SYMTAB: dv->sym = dyn_ptr(v, dv->bias); break;
		case DT_STRTAB: dv->str = dyn_ptr(v, dv->bias); break;
		case DT_GNU_HASH: dv->gnu_hash = dyn_ptr(v, dv->bias); break;
		case DT_RELA: dv->rela = dyn_ptr(v, dv->bias); break;
		case DT_RELASZ: relasz = d->d_un.d_val; break;
		case DT_JMPREL: dv->jmprel = dyn_ptr(v, dv->bias); break;
		case DT_PLTRELSZ: pltsz = d->d_un.d_val; break;
		case DT_VERSYM: dv->versym = dyn_ptr(v, dv->bias); break;
		case DT_VERNEED: dv->verneed = dyn_ptr(v, dv->bias); break;
		case DT_SONAME: dv->soname = d->d_un.d_val; break;
		case DT_NEEDED:
			if (dv->nneeded < MAX_NEEDED)
				dv->needed[dv->nneeded++] = d->d_un.d_val;
			break;
		default: break;
		}
	}
	dv->nrela = dv->rela ? relasz / sizeof(ElfW(Rela)) : 0;
	dv->njmprel = dv->jmprel ? pltsz / sizeof(ElfW(Rela)) : 0;
	if (!dv->sym || !dv->str)
		dv->nrela = dv->njmprel = 0;
}

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct pass *p = arg;
	struct dynview *dv;
	const ElfW(Dyn) *dyn = NULL;

	const struct ut_module *m = module_at(info->dlpi_addr);

	(void)size;
	if (info->dlpi_addr != ut_rt.self_base && !m)
		return 0;
	if (p->nv == p->capv) {
		size_t cap = p->capv ? 2 * p->capv : 32;
		struct dynview *n = realloc(p->v, cap * sizeof(*n));

		if (!n)
			return 0;
		p->v = n;
		p->capv = cap;
	}
	dv = &p->v[p->nv];
	memset(dv, 0, sizeof(*dv));
	dv->bias = info->dlpi_addr;
	dv->path = info->dlpi_addr == ut_rt.self_base ? NULL : m->path;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uint64_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)lo;
		else if (ph->p_type == PT_GNU_RELRO) {
			dv->relro_lo = lo;
			dv->relro_hi = lo + ph->p_memsz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && dv->ntext < MAX_TEXT) {
			dv->text_lo[dv->ntext] = lo;
			dv->text_hi[dv->ntext++] = lo + ph->p_memsz;
		}
	}
	if (dyn) {
		read_dynamic(dv, dyn);
		p->nv++;
	}
	return 0;
}

static const struct dynview *view_at(const struct pass *p, uint64_t bias)
{
	for (size_t i = 0; i < p->nv; i++)
		if (p->v[i].bias == bias && p->v[i].path)
			return &p->v[i];
	return NULL;
}

/* The loaded object a DT_NEEDED name means: by its soname, else its file name. */
static struct dynview *needed_view(struct pass *p, const char *name)
{
	for (size_t i = 0; i < p->nv; i++) {
		struct dynview *dv = &p->v[i];
		const char *base = dv->path ? strrchr(dv->path, '/') : NULL;

		if ((dv->soname && !strcmp(dv->str + dv->soname, name)) ||
		    (base && !strcmp(base + 1, name)))
			return dv;
	}
	return NULL;
}

/* Mark @dv and what it needs, transitively. */
static void reach(struct pass *p, struct dynview *dv)
{
	if (!dv || dv->reached || !dv->str)
		return;
	dv->reached = true;
	for (int i = 0; i < dv->nneeded; i++)
		reach(p, needed_view(p, dv->str + dv->needed[i]));
}

/*
 * The objects libutrace.so brought in and the program does not need
 * (libelf, libz...): their calls happen for the runtime, under ut_quiet,
 * and the tools, which list what the program loads, do not see them.
 */
static void mark_runtime_objects(struct pass *p)
{
	struct dynview *self = NULL;

	for (size_t i = 0; i < p->nv; i++)
		if (!p->v[i].path)
			self = &p->v[i];
	if (!self || !ut_rt.nr_mods)
		return;
	reach(p, self);
	for (size_t i = 0; i < p->nv; i++) {
		p->v[i].runtime = p->v[i].reached;
		p->v[i].reached = false;
	}
	/* the program and its own dependencies (ut_rt.mods[0] is the program) */
	reach(p, (struct dynview *)view_at(p, ut_rt.mods[0]->bias));
	for (size_t i = 0; i < p->nv; i++)
		p->v[i].runtime &= !p->v[i].reached && p->v[i].path;
	/* and capstone, which the runtime opens itself when it first patches a prologue */
	for (size_t i = 0; i < p->nv; i++)
		p->v[i].runtime |= p->v[i].path && strstr(p->v[i].path, "/libcapstone.") &&
				   !p->v[i].reached;
}

static bool in_text(const struct dynview *dv, uint64_t a)
{
	for (int i = 0; i < dv->ntext; i++)
		if (a >= dv->text_lo[i] && a + 8 <= dv->text_hi[i])
			return true;
	return false;
}

/* Is @a code of libutrace.so (dladdr would find out, but scans every symbol per call)? */
static bool in_self(const struct pass *p, uint64_t a)
{
	for (size_t i = 0; i < p->nv; i++)
		if (!p->v[i].path)
			return in_text(&p->v[i], a);
	return false;
}

/* The version an undefined symbol asks for (its Vernaux), or NULL. */
static const char *wanted_version(const struct dynview *dv, uint32_t si)
{
	const ElfW(Verneed) *vn = dv->verneed;
	ElfW(Half) want;

	if (!dv->versym || !vn)
		return NULL;
	want = dv->versym[si] & 0x7fff;
	if (want < 2)
		return NULL;
	for (;;) {
		const ElfW(Vernaux) *a = (const void *)((const char *)vn + vn->vn_aux);

		for (unsigned k = 0; k < vn->vn_cnt; k++) {
			if (a->vna_other == want)
				return dv->str + a->vna_name;
			if (!a->vna_next)
				break;
			a = (const void *)((const char *)a + a->vna_next);
		}
		if (!vn->vn_next)
			return NULL;
		vn = (const void *)((const char *)vn + vn->vn_next);
	}
}

/*
 * @name in the scope of the object at @path and its dependencies: an
 * object dlopen()ed RTLD_LOCAL calls its own dependencies, which are not in
 * the global scope.  The real dlopen (RTLD_NOLOAD: the object is loaded),
 * not libutrace's wrapper, which would scan again under ut_rt.lock.
 */
static void *local_lookup(const char *path, const char *name)
{
	static void *(*real_open)(const char *, int);
	static int (*real_close)(void *);
	void *h, *t;

	if (!real_open) {
		real_open = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
		real_close = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
	}
	h = real_open && real_close ? real_open(path, RTLD_LAZY | RTLD_NOLOAD) : NULL;
	if (!h)
		return NULL;
	t = dlsym(h, name);
	real_close(h);
	return t;
}

/*
 * Where a call through @got goes: the slot's value once bound; for a slot
 * still lazy (a JUMP_SLOT pointing back into its PLT), what the dynamic
 * linker would bind it to, looked up in the global scope with the version
 * the reference asks for.  0 if nothing.
 */
static uint64_t call_target(const struct pass *p, const struct dynview *dv, bool jump_slot,
			    const uint64_t *got, const char *name, uint32_t si)
{
	uint64_t v = __atomic_load_n(got, __ATOMIC_RELAXED);
	const char *ver;
	void *t, *v2;

	if (!jump_slot || !in_text(dv, v) || !ut_arch_plt_lazy_entry((const uint8_t *)v))
		return v;
	/*
	 * libutrace.so comes first in the global scope and its definitions
	 * carry no version, which the loader accepts for a versioned reference
	 * (libstdc++'s _Unwind_RaiseException@GCC_3.0): dlvsym would skip them.
	 */
	t = dlsym(RTLD_DEFAULT, name);
	if (t && in_self(p, (uint64_t)t))
		return (uint64_t)t;
	ver = wanted_version(dv, si);
	if (ver && (v2 = dlvsym(RTLD_DEFAULT, name, ver)))
		t = v2;
	if (!t && dv->path)
		t = local_lookup(dv->path, name);
	return (uint64_t)t;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (uint8_t)*s;
	return h;
}

static bool defined_function(const ElfW(Sym) *s)
{
	unsigned t = ELF64_ST_TYPE(s->st_info);

	return s->st_shndx != SHN_UNDEF && (t == STT_FUNC || t == STT_GNU_IFUNC);
}

/*
 * The address of the function @name that a call reaching @target calls, in
 * the defining object @dv: the symbol itself when it is @target, else an
 * IFUNC of that name (the call reaches the implementation its resolver
 * chose; the function is the IFUNC symbol, as the library's symbols name
 * it).  0 if @target is not that function (e.g. a canonical PLT entry).
 */
static uint64_t function_at(const struct dynview *dv, const char *name, uint64_t target)
{
	const uint32_t *h = dv->gnu_hash;
	uint32_t nb, symoff, bloom, hash, i;
	const uint32_t *buckets, *chain;
	uint64_t ifunc = 0;

	if (!h || !h[0])
		return 0;
	nb = h[0];
	symoff = h[1];
	bloom = h[2];
	buckets = (const uint32_t *)((const uint64_t *)(h + 4) + bloom);
	chain = buckets + nb;
	hash = gnu_hash(name);
	i = buckets[hash % nb];
	if (i < symoff)
		return 0;
	for (;; i++) {
		const ElfW(Sym) *s = &dv->sym[i];
		uint32_t c = chain[i - symoff];

		if ((c | 1) == (hash | 1) && defined_function(s) && !strcmp(dv->str + s->st_name, name)) {
			if (dv->bias + s->st_value == target)
				return target;
			if (ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC && !ifunc)
				ifunc = dv->bias + s->st_value;
		}
		if (c & 1)
			return ifunc;
	}
}

/* A site of another kind (compiler, patched prologue) at the entry of the function at @ip. */
static bool has_own_site(uint64_t ip)
{
	for (unsigned off = 0; off <= 4; off += 4) {
		struct ut_module *m = NULL;

		if (ut_sites_find_in(ip + off, &m) && m->kind != UT_KIND_LIBCALL)
			return true;
	}
	return false;
}

/*
 * The name a function's records will print with: the defining object's
 * symbol at @ip, chosen among aliases as readers choose (puts, not
 * _IO_puts), so the name a filter matches is the name printed.
 */
static const char *print_name(struct pass *p, const struct ut_module *def, uint64_t ip,
			      const char *called)
{
	struct ut_symtab *st = def->index < p->nr_names ? p->names[def->index] : NULL;
	const struct ut_sym *s;

	if (!st && def->index < p->nr_names) {
		st = p->names[def->index] = ut_symtab_new();
		if (st && ut_symtab_load_elf(st, def->path, def->bias, NULL) >= 0)
			ut_symtab_finish(st);
	}
	s = st ? ut_symtab_lookup(st, ip) : NULL;
	return strdup(s && s->addr == ip ? s->name : called);
}

/*
 * The object defining the function a call reaching @target calls, and the
 * function's address there (*@ip): the object whose symbol of that name is
 * @target, else the first (in load order, the loader's search order) with
 * an IFUNC of that name -- whose implementation may lie in another object
 * (gettimeofday's is in the vDSO).  NULL for the loader's functions and for
 * libutrace.so's (the wrappers it interposes).
 */
static const struct ut_module *definer(const struct pass *p, uint64_t target, const char *called,
				       uint64_t *ip)
{
	const struct dynview *ifunc = NULL;
	uint64_t at = 0;

	if (in_self(p, target))
		return NULL;
	for (size_t i = 0; i < p->nv; i++) {
		const struct dynview *dv = &p->v[i];
		uint64_t a = dv->path ? function_at(dv, called, target) : 0;

		if (a == target && in_text(dv, target)) {
			ifunc = dv;
			at = a;
			break;
		}
		if (a && !ifunc) {
			ifunc = dv;
			at = a;
		}
	}
	const struct ut_module *def = ifunc ? module_at(ifunc->bias) : NULL;

	if (!def || is_loader(def))
		return NULL;
	*ip = at;
	return def;
}

/* The hook of the function a call reaching @target calls (made if new), or NULL if not hooked. */
static struct ut_plt_fn *hook_for(struct pass *p, uint64_t target, const char *called)
{
	const struct ut_module *def;
	struct ut_plt_fn *fn;
	uint64_t ip = 0;

	def = definer(p, target, called, &ip);
	if (!def || has_own_site(ip))
		return NULL;
	fn = find_fn(ip);
	if (fn)
		return fn;
	fn = calloc(1, sizeof(*fn));
	if (!fn)
		return NULL;
	fn->ip = ip;
	fn->target = target;
	fn->def = def->index;
	fn->name = print_name(p, def, ip, called);
	if (!fn->name || grow((void **)&p->fresh, &p->capfresh, p->nfresh + 1,
				    sizeof(struct ut_plt_fn *)) ||
	    add_fn(fn)) {
		free((void *)fn->name);
		free(fn);
		return NULL;
	}
	p->fresh[p->nfresh++] = fn;
	return fn;
}

static void add_slot(struct ut_plt_fn *fn, uint64_t *got, const struct ut_module *ref,
		     const struct dynview *dv)
{
	for (uint32_t i = 0; i < fn->nr_slots; i++) {
		struct ut_plt_slot *s = &fn->slots[i];

		if (s->got == got && ut_rt.mods[s->ref]->alive)
			return;
		if (s->got == got || !ut_rt.mods[s->ref]->alive) {
			/* an unloaded object's slot: the object now there takes it */
			s->got = got;
			s->ref = ref->index;
			s->relro = (uint64_t)got >= dv->relro_lo && (uint64_t)got < dv->relro_hi;
			return;
		}
	}
	if (grow((void **)&fn->slots, &fn->cap_slots, fn->nr_slots + 1, sizeof(*fn->slots)))
		return;
	fn->slots[fn->nr_slots++] = (struct ut_plt_slot){
		.got = got,
		.ref = ref->index,
		.relro = (uint64_t)got >= dv->relro_lo && (uint64_t)got < dv->relro_hi};
}

/* One relocation of @ref: a GOT slot a call goes through, hooked if its function may be. */
static void take_reloc(struct pass *p, const struct ut_module *ref, const struct dynview *dv,
		       const ElfW(Rela) *r)
{
	uint32_t si = (uint32_t)ELF64_R_SYM(r->r_info);
	unsigned kind = ut_plt_reloc_kind((uint32_t)ELF64_R_TYPE(r->r_info));
	const ElfW(Sym) *s;
	const char *name;
	uint64_t *got, target;
	struct ut_plt_fn *fn;
	unsigned type;

	if (!kind || !si)
		return;
	s = &dv->sym[si];
	type = ELF64_ST_TYPE(s->st_info);
	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE)
		return; /* data: a GOT slot holding a variable's address */
	name = dv->str + s->st_name;
	if (!*name || ut_plt_never_hooked(name))
		return;
	got = (uint64_t *)(dv->bias + r->r_offset);
	target = call_target(p, dv, kind == UT_PLT_JUMP_SLOT, got, name, si);
	fn = target ? hook_for(p, target, name) : NULL;
	if (fn)
		add_slot(fn, got, ref, dv);
}

static void scan_object(struct pass *p, struct ut_module *ref)
{
	const struct dynview *dv = view_at(p, ref->bias);

	ref->plt_scanned = true;
	if (!dv || is_loader(ref) || dv->runtime)
		return;
	for (size_t i = 0; i < dv->nrela; i++)
		take_reloc(p, ref, dv, &dv->rela[i]);
	for (size_t i = 0; i < dv->njmprel; i++)
		take_reloc(p, ref, dv, &dv->jmprel[i]);
}

static int by_def_ip(const void *a, const void *b)
{
	const struct ut_plt_fn *x = *(const struct ut_plt_fn *const *)a;
	const struct ut_plt_fn *y = *(const struct ut_plt_fn *const *)b;

	if (x->def != y->def)
		return x->def < y->def ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/* Room for @more rows in ut_rt.funcs. */
static int reserve_funcs(uint32_t more)
{
	return grow((void **)&ut_rt.funcs, &ut_rt.cap_funcs, ut_rt.nr_funcs + more,
		    sizeof(*ut_rt.funcs));
}

/* Stubs for @n hooks, in pages of their own (written, then made executable). */
static int make_stubs(struct ut_plt_fn **v, uint32_t n)
{
	size_t len = ((size_t)n * UT_ARCH_PLT_STUB_SIZE + 4095) & ~(size_t)4095;
	uint8_t *code = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (code == MAP_FAILED)
		return -errno;
	for (uint32_t i = 0; i < n; i++) {
		v[i]->stub = (uint64_t)(code + (size_t)i * UT_ARCH_PLT_STUB_SIZE);
		ut_arch_make_plt_stub((uint8_t *)v[i]->stub, (uint64_t)v[i], (uint64_t)utrace_plt_entry);
	}
	if (mprotect(code, len, PROT_READ | PROT_EXEC))
		return -errno;
	return 0;
}

/*
 * The hooks of @n new functions defined in @def become the sites of a new
 * hooks module (sorted by address, as ut_sites_find() searches) and rows
 * of the function table.
 */
static int place(struct ut_plt_fn **v, uint32_t n, const struct ut_module *def)
{
	struct ut_module *hm;

	if (ut_rt.nr_mods >= UT_MAX_MODULES || reserve_funcs(n))
		return -ENOMEM;
	hm = calloc(1, sizeof(*hm));
	if (!hm)
		return -ENOMEM;
	hm->sites = calloc(n, sizeof(*hm->sites));
	hm->stub_slot = malloc(sizeof(*hm->stub_slot));
	if (!hm->sites || !hm->stub_slot || make_stubs(v, n)) {
		free(hm->sites);
		free(hm->stub_slot);
		free(hm);
		return -ENOMEM;
	}
	memcpy(hm->path, def->path, sizeof(hm->path));
	memcpy(hm->name, def->name, sizeof(hm->name));
	hm->bias = def->bias;
	hm->alive = true;
	hm->kind = UT_KIND_LIBCALL;
	hm->plt_scanned = true;
	hm->symfd = -1;
	hm->index = ut_rt.nr_mods;
	*hm->stub_slot = def->stub_slot ? *def->stub_slot : (uint64_t)utrace_func_caller;
	for (uint32_t i = 0; i < n; i++) {
		hm->sites[i] = (struct ut_site){
			.addr = v[i]->ip, .func = ut_rt.nr_funcs, .len = 1};
		ut_rt.funcs[ut_rt.nr_funcs++] = (struct ut_func){
			.name = v[i]->name,
			.module = hm->name[0] ? hm->name : NULL,
			.mod = hm->index,
			.site = i};
		v[i]->site = &hm->sites[i];
		v[i]->tracer = hm->stub_slot;
	}
	hm->nr_sites = n;
	hm->lo = hm->sites[0].addr;
	hm->hi = hm->sites[n - 1].addr + 1;
	ut_rt.mods[ut_rt.nr_mods] = hm;
	__atomic_store_n(&ut_rt.nr_mods, ut_rt.nr_mods + 1, __ATOMIC_RELEASE);
	return 0;
}

/**
 * ut_plt_scan - hook the library calls of every object not looked at yet
 *
 * Called under ut_rt.lock by ut_select_apply() when library calls are
 * wanted (-O plt), after the objects' own sites are known (so a function
 * with a site is left to it).  New functions join ut_rt.funcs; their GOT
 * slots change only in ut_plt_apply().
 */
int ut_plt_scan(void)
{
	struct pass p = {0};
	uint32_t nr = ut_rt.nr_mods, i = 0;
	int ret = 0;

	for (uint32_t k = 0; k < nr; k++)
		i += ut_rt.mods[k]->alive && !ut_rt.mods[k]->plt_scanned;
	if (!i)
		return 0;
	p.names = calloc(nr, sizeof(struct ut_symtab *));
	p.nr_names = p.names ? nr : 0;
	dl_iterate_phdr(collect, &p);
	mark_runtime_objects(&p);
	for (uint32_t k = 0; k < nr; k++) {
		struct ut_module *m = ut_rt.mods[k];

		if (m->alive && !m->plt_scanned)
			scan_object(&p, m);
	}
	if (p.nfresh)
		qsort(p.fresh, p.nfresh, sizeof(struct ut_plt_fn *), by_def_ip);
	for (i = 0; i < p.nfresh && !ret;) {
		uint32_t j = i;

		while (j < p.nfresh && p.fresh[j]->def == p.fresh[i]->def)
			j++;
		ret = place(p.fresh + i, j - i, ut_rt.mods[p.fresh[i]->def]);
		i = j;
	}
	for (uint32_t k = 0; k < p.nr_names; k++)
		ut_symtab_free(p.names[k]);
	free(p.names);
	free(p.fresh);
	free(p.v);
	return ret;
}

/* One aligned store into a GOT slot; a slot in RELRO gets a short read-write window. */
static int set_slot(const struct ut_plt_slot *s, uint64_t v)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *page = (void *)((uint64_t)s->got & ~(uint64_t)(pg - 1));

	if (s->relro && mprotect(page, (size_t)pg, PROT_READ | PROT_WRITE))
		return -errno;
	__atomic_store_n(s->got, v, __ATOMIC_RELEASE);
	if (s->relro && mprotect(page, (size_t)pg, PROT_READ))
		return -errno;
	return 0;
}

/**
 * ut_plt_apply - point each hooked GOT slot where its function's wanted state says
 *
 * On: at the stub.  Off: back at the function, but only a slot that points
 * at the stub (one never turned on keeps what the loader put there).  Slots
 * of unloaded objects are left alone.  Under ut_rt.lock, from
 * ut_patch_apply().  Return: how many slots changed (a slot that cannot be
 * written is said once and left).
 */
int ut_plt_apply(void)
{
	static bool told;
	int changed = 0, ret;

	for (uint32_t i = 0; i < nr_fns; i++) {
		const struct ut_plt_fn *fn = fns[i];
		bool on = fn->site && fn->site->want == UT_SITE_FUNC && ut_rt.mods[fn->def]->alive;

		for (uint32_t k = 0; fn->site && k < fn->nr_slots; k++) {
			const struct ut_plt_slot *s = &fn->slots[k];
			uint64_t want = on ? fn->stub : fn->target, cur;

			if (!ut_rt.mods[s->ref]->alive)
				continue; /* unmapped */
			cur = __atomic_load_n(s->got, __ATOMIC_RELAXED);
			if (cur == want || (!on && cur != fn->stub))
				continue;
			ret = set_slot(s, want);
			if (ret && !told) {
				/* that object's calls stay as they are; the others change */
				ut_log("library calls: a GOT slot of %s cannot be written (%s)",
				       ut_rt.mods[s->ref]->path, strerror(-ret));
				told = true;
			}
			changed += !ret;
		}
	}
	return changed;
}
