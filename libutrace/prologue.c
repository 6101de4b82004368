// SPDX-License-Identifier: MIT
/*
 * Patched prologues (common/prologue.h): sites for the functions the
 * compiler gave none, with -O patch-prologue.
 *
 * When the option is on and an object's symbols are read, its functions
 * without a compiler site are planned (ut_pro_walk); those that can be
 * patched become the sites of one more module, of kind UT_KIND_PROLOGUE,
 * whose functions join the filter table like any others.  Nothing is
 * written then: a function's patch is installed the first time it is
 * wanted (ut_prologue_install, from ut_patch_apply), and stays (a nop and a
 * jump) when it is turned off; from then on the patcher toggles its site
 * as a compiler's.
 *
 * Installing replaces several instructions while other threads may run
 * them, which text_poke_bp alone does not cover:
 *
 *   1. the slot is written (moved instructions, jump back);
 *   2. int3 on E's first byte, sync: a thread arriving at E now traps and
 *      the SIGTRAP handler sends it to the slot (ut_prologue_resume);
 *   3. a thread may still be between two of the moved instructions (it ran
 *      the first ones before the int3, or was preempted there).  Each thread
 *      running in user mode is sent a SIGTRAP of ours (rt_tgsigqueueinfo,
 *      SI_QUEUE, our magic value); its handler moves a PC found inside the
 *      moved bytes to the same instruction in the slot, and answers.  A
 *      thread blocked in a system call is not signalled (no EINTR for it):
 *      its PC is at the system call, never among moved bytes (refused).
 *      A thread that does not answer in time makes the batch give up: E's
 *      first byte is put back, nothing else was changed;
 *   4. the rest of the patch (nop tail, `jmp slot`, int3 fill), sync;
 *   5. E's first byte, sync.
 * Nothing returns into the moved bytes: a call among them is their last
 * instruction, and the function's own branches do not land there (the
 * plan refuses both).  Not covered: a thread interrupted inside the moved
 * bytes by a signal whose handler is still running (its PC is in the
 * signal frame, not where the installer's signal finds it).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/ehframe.h"
#include "common/filter.h"
#include "common/prologue.h"
#include "common/symbols.h"
#include "common/symsnap.h"
#include "libutrace/internal.h"
#include "libutrace/ool.h"


#define MIGRATE_MAGIC 0x7570 /* "up": our signal, not the program's (then the round) */
#define SLOT_AREA (1u << 20)

/* The batch being installed, for the signal handler. */
static struct ut_ool *volatile batch[4096];
static struct ut_site *batch_site[4096];
static volatile uint32_t batch_n;
static uint32_t acks;
static uint16_t round_no;            /* a late answer to an earlier round is not counted */
#define MAX_ASKED 4096
static int asked_tid[MAX_ASKED];     /* the threads a round asked */
static uint32_t asked_n;             /* how many of them (0: no round) */
static uint8_t answered[MAX_ASKED];  /* set by each one's handler */

/* Slot memory: areas near each object, handed out in UT_PRO_SLOT pieces. */
struct slot_area {
	uint64_t base, used;
};
static struct slot_area areas[64];
static unsigned nr_areas;

/* --- planning: the module of patched prologues ---------------------------- */

struct found {
	const struct ut_module *m;
	struct ut_ool *e;
	const char **names;
	size_t n, cap;
};

const uint8_t *ut_ool_code(void *ctx, uint64_t addr, size_t len)
{
	const struct ut_ool_segs *g = ctx;

	for (int i = 0; i < g->n; i++)
		if (addr >= g->lo[i] && addr + len <= g->hi[i])
			return (const uint8_t *)addr;
	return NULL;
}

static const uint8_t *mem_bytes(void *ctx, uint64_t addr, size_t len)
{
	const struct ut_ool_segs *g = ctx;

	for (int i = 0; i < g->nr; i++)
		if (addr >= g->rlo[i] && addr + len <= g->rhi[i] && addr + len > addr)
			return (const uint8_t *)addr;
	return NULL;
}

static void collect(void *ctx, const struct ut_sym *s, enum ut_pro_why why,
		    const struct ut_pro_plan *p)
{
	struct found *f = ctx;

	if (why != UT_PRO_OK || ut_usdt_jump_owns(f->m, s->addr, s->addr + p->skip + p->moved))
		return; /* a USDT probe's: its nop, or the bytes its jump moved */
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 256;
		struct ut_ool *e = realloc(f->e, cap * sizeof(*e));
		const char **names = e ? realloc(f->names, cap * sizeof(*names)) : NULL;

		if (e)
			f->e = e;
		if (!names)
			return;
		f->names = names;
		f->cap = cap;
	}
	f->e[f->n] = (struct ut_ool){.entry = s->addr, .plan = *p};
	f->names[f->n++] = s->name;
}

struct seg_ctx {
	const struct ut_module *m;
	struct ut_ool_segs *g;
};

static int segments(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct seg_ctx *c = arg;

	(void)size;
	if (info->dlpi_addr != c->m->bias)
		return 0;
	for (int i = 0; i < info->dlpi_phnum && c->g->n < 16; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_EH_FRAME)
			c->g->eh_hdr = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && c->g->nr < 16) { /* mapped: p_filesz, not p_memsz */
			c->g->rlo[c->g->nr] = info->dlpi_addr + ph->p_vaddr;
			c->g->rhi[c->g->nr++] = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
		}
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			c->g->lo[c->g->n] = info->dlpi_addr + ph->p_vaddr;
			c->g->hi[c->g->n++] = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
		}
	}
	return 1;
}

void ut_ool_segments(const struct ut_module *m, struct ut_ool_segs *g)
{
	struct seg_ctx sc = {m, g};

	g->n = g->nr = 0;
	g->eh_hdr = 0;
	dl_iterate_phdr(segments, &sc);
}

struct ut_module *ut_ool_module(struct ut_module *of, unsigned kind, struct ut_ool *e, size_t n,
				 const uint64_t *sites, const char **names, uint64_t tramp)
{
	struct ut_module *p = calloc(1, sizeof(*p));

	if (!p || !(p->sites = calloc(n, sizeof(*p->sites)))) {
		free(p);
		return NULL;
	}
	memcpy(p->path, of->path, sizeof(p->path));
	memcpy(p->name, of->name, sizeof(p->name));
	p->bias = of->bias;
	p->alive = true;
	p->symfd = -1;
	p->kind = (uint8_t)kind;
	p->of = of;
	p->kind_data = e;
	p->nr_sites = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		p->sites[i].addr = sites[i];
		p->sites[i].len = UT_ARCH_CALL_SIZE;
		p->sites[i].func = UT_NO_FUNC;
	}
	p->lo = p->sites[0].addr;
	p->hi = p->sites[n - 1].addr + UT_ARCH_CALL_SIZE;
	if (ut_patch_prepare_module(p)) {
		free(p->sites);
		free(p);
		return NULL;
	}
	if (tramp)
		*p->stub_slot = tramp;
	if (ut_sites_add_module(p)) {
		free(p->sites);
		free(p);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		p->sites[i].func = ut_sites_add_func(p, names[i], (uint32_t)i);
	return p;
}

static bool write_slot(struct ut_ool *pe);

void ut_ool_sort_sites(struct ut_ool *e, const char **names, uint64_t *sites, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && sites[j] < sites[j - 1]; j--) {
			struct ut_ool t = e[j];
			const char *nm = names[j];
			uint64_t a = sites[j];

			e[j] = e[j - 1];
			e[j - 1] = t;
			names[j] = names[j - 1];
			names[j - 1] = nm;
			sites[j] = sites[j - 1];
			sites[j - 1] = a;
		}
}

/*
 * The module of @n of @f's functions of one form, made and published (its
 * entries then its kind data); false if none.  The short form's slots are
 * written now, for its sites are in them (a function whose slot cannot be
 * written is left out); readers name those sites from the session's
 * "names.<index>".
 */
static bool make_module(struct ut_module *m, struct ut_ool *e, const char **names, size_t n,
			bool jump)
{
	uint64_t *sites = malloc((n + 1) * sizeof(*sites));
	struct ut_module *p = NULL;
	size_t k = 0;

	for (size_t i = 0; sites && i < n; i++) {
		if (jump && !write_slot(&e[i]))
			continue;
		e[k] = e[i];
		names[k] = names[i];
		sites[k] = jump ? e[k].jump_to : e[k].entry + e[k].plan.skip;
		k++;
	}
	if (k) {
		ut_ool_sort_sites(e, names, sites, k);
		p = ut_ool_module(m, UT_KIND_PROLOGUE, e, k, sites, names, 0);
	}
	if (p && jump)
		ut_ool_log_names(p, names, "prologue");
	free(sites);
	return p != NULL;
}

/*
 * @f's functions as the modules of their forms: true if @f's names are
 * kept (its symbols must stay).  @f->e goes to the site-at-entry module.
 */
static bool make_modules(struct ut_module *m, struct found *f)
{
	struct ut_ool *sh = malloc((f->n + 1) * sizeof(*sh));
	const char **shn = calloc(f->n + 1, sizeof(*shn));
	size_t n = 0, k = 0;
	bool kept = false;

	if (!sh || !shn) {
		free(sh);
		free(shn);
		return false;
	}
	for (size_t i = 0; i < f->n; i++) { /* the short form apart */
		if (f->e[i].plan.jump) {
			sh[k] = f->e[i];
			shn[k++] = f->names[i];
		} else {
			f->e[n] = f->e[i];
			f->names[n++] = f->names[i];
		}
	}
	if (n && make_module(m, f->e, f->names, n, false)) {
		f->e = NULL;
		kept = true;
	}
	if (k && make_module(m, sh, shn, k, true)) {
		sh = NULL;
		kept = true;
	}
	free(sh);
	free(shn); /* the names themselves are the symbols', kept */
	return kept;
}

void ut_ool_log_names(const struct ut_module *p, const char *const *names, const char *tag)
{
	struct ut_symtab *st = ut_symtab_new();
	char file[32], line[128];
	int fd, n;

	if (!st || ut_rt.dirfd < 0 || !ut_rt.ctl) {
		ut_symtab_free(st);
		return;
	}
	for (uint32_t i = 0; i < p->nr_sites; i++)
		ut_symtab_add(st, p->sites[i].addr, UT_ARCH_CALL_SIZE, names[i], p->name[0] ? p->name : NULL);
	ut_symtab_finish(st);
	snprintf(file, sizeof(file), "names.%u", p->index);
	if (ut_symsnap_write(ut_rt.dirfd, file, st, 0) == 0) {
		fd = openat(ut_rt.dirfd, "modules", O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
		n = snprintf(line, sizeof(line), "names 0 %s %s%s%s\n", p->name[0] ? p->name : "-", file,
			     tag ? " " : "", tag ? tag : "");
		if (fd >= 0 && write(fd, line, (size_t)n) == n)
			__atomic_add_fetch(&ut_rt.ctl->modules_gen, 1, __ATOMIC_RELEASE);
		if (fd >= 0)
			close(fd);
	}
	ut_symtab_free(st);
}

/*
 * A stripped object (no .symtab): what its FDEs say (common/prologue.h),
 * in @fr (@v to free).  Without them none of its functions is patched: said once.
 */
static void stripped_frames(const struct ut_module *m, struct ut_ool_segs *g,
			    struct ut_pro_frames *fr, struct ut_eh_range **v)
{
	long n = ut_eh_ranges(g->eh_hdr, mem_bytes, g, v);

	fr->v = *v;
	fr->n = n > 0 ? (size_t)n : 0;
	if (!fr->n)
		ut_log("%s: stripped, without a .eh_frame it can read: no function of it can be checked for "
		       "a patched prologue, none is traced",
		       m->path);
}

/* Plan @m's functions without a site; publish the module of the patchable ones. */
static void plan_module(struct ut_module *m)
{
	struct found f = {.m = m};
	struct ut_ool_segs g;
	struct ut_pro_frames frames = {0};
	struct ut_eh_range *eh = NULL;
	struct ut_symtab *st;
	uint64_t *sites;
	bool stripped;

	if (ut_pro_module_refused(m->path))
		return;
	st = ut_sites_symbols(m);
	sites = malloc((m->nr_sites + 1) * sizeof(*sites));
	if (!st || !sites)
		goto out;
	for (uint32_t i = 0; i < m->nr_sites; i++)
		sites[i] = m->sites[i].addr;
	ut_ool_segments(m, &g);
	stripped = !ut_elf_has_symtab(m->path);
	if (stripped)
		stripped_frames(m, &g, &frames, &eh);
	ut_pro_walk(st, sites, m->nr_sites, stripped ? &frames : NULL, ut_ool_code, &g,
		    &(struct ut_pro_data){mem_bytes, ut_ool_code, &g}, collect, &f);
	free(eh);
	if (f.n && make_modules(m, &f))
		st = NULL; /* the functions' names point into it */
out:
	free(f.e);
	free(f.names);
	free(sites);
	ut_symtab_free(st);
}

/**
 * ut_prologue_sync - give the functions without a site theirs
 *
 * With -O patch-prologue, once per named object.  Under ut_rt.lock.
 */
void ut_prologue_sync(void)
{
	uint32_t n = ut_rt.nr_mods;

	if (!ut_rt.cfg.patch_prologue)
		return;
	for (uint32_t i = 0; i < n; i++) {
		struct ut_module *m = ut_rt.mods[i];

		if (m->kind != UT_KIND_COMPILER || !m->alive || m->unnamed || m->kinds_done)
			continue;
		m->kinds_done = true;
		plan_module(m);
	}
}

/* --- installing ----------------------------------------------------------- */

int ut_ool_poke(uint64_t addr, const void *buf, size_t len)
{
	return pwrite(ut_rt.memfd, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -EIO;
}



static bool near(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;

	return d < (uint64_t)UT_ARCH_CALL_REACH / 2;
}

/* A new area of slots within reach of @e (half a call's reach: operands near @e too). */
static struct slot_area *new_area(uint64_t e)
{
	long pg = sysconf(_SC_PAGESIZE);

	if (nr_areas >= sizeof(areas) / sizeof(areas[0]))
		return NULL;
	for (int64_t step = 1; step < 1024; step++)
		for (int dir = -1; dir <= 1; dir += 2) {
			uint64_t hint = ((e & ~(uint64_t)(pg - 1)) + (uint64_t)(dir * step) * 0x200000);
			void *p;

			if (!near(hint, e))
				continue;
			p = mmap((void *)hint, SLOT_AREA, PROT_READ | PROT_EXEC,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
			if (p == MAP_FAILED)
				continue;
			if ((uint64_t)p != hint) {
				munmap(p, SLOT_AREA);
				continue;
			}
			areas[nr_areas] = (struct slot_area){.base = hint};
			return &areas[nr_areas++];
		}
	return NULL;
}

uint64_t ut_ool_slot_for(uint64_t e, uint64_t size)
{
	struct slot_area *a = NULL;

	for (unsigned i = 0; i < nr_areas && !a; i++)
		if (near(areas[i].base, e) && areas[i].used + size <= SLOT_AREA)
			a = &areas[i];
	if (!a && !(a = new_area(e)))
		return 0;
	a->used += size;
	return a->base + a->used - size;
}

/*
 * Step 1: the slot's code; false if the function cannot be moved after all.
 * The short form's slot starts with its site (a nop until it is wanted),
 * where E's jump and a thread trapping at E go.
 */
static bool write_slot(struct ut_ool *pe)
{
	unsigned head = pe->plan.jump ? UT_ARCH_CALL_SIZE : 0;
	uint8_t code[UT_ARCH_CALL_SIZE + UT_PRO_SLOT];
	size_t len = 0;
	uint64_t slot;

	/* a moved call returns to an address it did not push: a shadow stack refuses that */
	if (pe->plan.call && ut_arch_shadow_stack())
		return false;
	slot = ut_ool_slot_for(pe->entry + pe->plan.skip, head + UT_PRO_SLOT);
	memset(code, UT_ARCH_TRAP_BYTE, sizeof(code));
	if (head)
		ut_arch_make_nop(code, head);
	if (!slot || ut_pro_relocate(&pe->plan, (const uint8_t *)pe->entry, pe->entry, slot + head,
				     code + head, &len, pe->map) != UT_PRO_OK)
		return false;
	if (ut_ool_poke(slot, code, head + UT_PRO_SLOT))
		return false;
	pe->slot = slot + head;
	if (head)
		pe->jump_to = slot;
	return true;
}

/* The batch: every wanted site whose patch is not installed yet. */
static uint32_t gather(void)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < ut_rt.nr_mods; i++) {
		struct ut_module *m = ut_rt.mods[i];
		struct ut_ool *pe = m->kind_data;

		if ((m->kind != UT_KIND_PROLOGUE && m->kind != UT_KIND_INLINED) || !m->alive)
			continue;
		for (uint32_t j = 0; j < m->nr_sites; j++) {
			if (m->sites[j].want == UT_SITE_OFF || pe[j].state == UT_OOL_READY)
				continue;
			if (n == sizeof(batch) / sizeof(batch[0]))
				return n; /* the rest in the next batch */
			/* an inlined instance's slot holds its site: written with its module */
			if (pe[j].state == UT_OOL_PENDING && (pe[j].slot || write_slot(&pe[j]))) {
				batch_site[n] = &m->sites[j];
				batch[n++] = &pe[j];
				continue;
			}
			pe[j].state = UT_OOL_FAILED;
			m->sites[j].want = UT_SITE_OFF; /* refused: stays as it is */
		}
	}
	return n;
}

/* --- moving threads out of the moved bytes -------------------------------- */

/* Where a thread stopped at @pc inside a batch's moved bytes resumes, or 0. */
static uint64_t migrated_pc(uint64_t pc)
{
	for (uint32_t i = 0; i < batch_n; i++) {
		const struct ut_ool *pe = batch[i];
		uint64_t e = pe->entry + pe->plan.skip;

		if (pc <= e || pc >= e + pe->plan.moved)
			continue;
		for (unsigned k = 1; k < pe->plan.nr; k++)
			if (pc == e + pe->plan.off[k])
				return pe->slot + pe->map[k];
		/*
		 * Right after E and not a boundary: the int3 at E ran, and its
		 * SIGTRAP merged with this one (a second standard signal is
		 * dropped while one is pending): resume as its trap would.
		 * (When E's instruction is one byte long, E + 1 is a boundary
		 * and taken as one: that case cannot be told apart.)
		 */
		if (pc == e + 1 && pe->state == UT_OOL_TRAPPING)
			return pe->jump_to ? pe->jump_to : pe->slot;
		return 0;
	}
	return 0;
}

/* Thread @i of the round answered: counted once, however many ways it answers. */
static void answer(uint32_t i)
{
	if (__atomic_exchange_n(&answered[i], 1, __ATOMIC_ACQ_REL))
		return;
	__atomic_add_fetch(&acks, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &acks, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/**
 * ut_prologue_signal - the installer's SIGTRAP, in the thread it was sent to
 *
 * Async-signal-safe.  Returns false for any other SIGTRAP.
 */
bool ut_prologue_signal(const siginfo_t *si, ucontext_t *uc)
{
	uint64_t to;

	uint64_t v = (uint64_t)si->si_value.sival_ptr;

	if (si->si_code != SI_QUEUE || si->si_pid != ut_rt.pid || (v >> 48) != MIGRATE_MAGIC ||
	    (uint32_t)v >= MAX_ASKED)
		return false;
	to = migrated_pc((uint64_t)uc->uc_mcontext.gregs[REG_RIP]);
	if (to)
		ut_arch_set_pc(uc, to);
	if ((uint16_t)(v >> 32) != __atomic_load_n(&round_no, __ATOMIC_ACQUIRE))
		return true; /* moved all the same: the slots stay valid */
	answer((uint32_t)v);
	return true;
}

/*
 * A thread that traps on a batch's E while a round waits is out of every
 * moved range, and resumes in a slot: that is its answer too.  Needed
 * because its trap's SIGTRAP and the round's may merge into one: the
 * round's, then, is lost.  Async-signal-safe.
 */
void ut_ool_trap_answers(void)
{
	uint32_t n = __atomic_load_n(&asked_n, __ATOMIC_ACQUIRE);
	int self;

	if (!n || !__atomic_load_n(&batch_n, __ATOMIC_ACQUIRE))
		return;
	self = (int)syscall(SYS_gettid);
	for (uint32_t i = 0; i < n; i++)
		if (asked_tid[i] == self)
			answer(i);
}

/*
 * Must thread @tid be asked?  Not if it is blocked in a system call (its
 * PC is at the system call: /proc/.../syscall says so), nor if it blocks
 * SIGTRAP (our own threads; a program's would die at any int3 anyway).
 */
/* /proc/self/task/@tid/@file into @buf (NUL-terminated); its length, or <= 0. */
static ssize_t task_file(int tid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n > 0)
		buf[n] = '\0';
	return n;
}

static bool must_ask(int tid)
{
	char buf[4096]; /* status: SigBlk is ~1 KiB in */
	ssize_t n = task_file(tid, "syscall", buf, sizeof(buf));

	if (n > 0 && buf[0] >= '0' && buf[0] <= '9')
		return false;
	n = task_file(tid, "status", buf, sizeof(buf));
	if (n > 0) {
		char *blk;
		unsigned long long mask;

		blk = strstr(buf, "SigBlk:");
		if (blk && sscanf(blk + 7, "%llx", &mask) == 1 && (mask & (1ull << (SIGTRAP - 1))))
			return false;
	}
	return true;
}

/* Ask thread @tid (number @i of the round); false if it is gone. */
static bool ask(int tid, uint32_t i)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGTRAP;
	si.si_code = SI_QUEUE;
	si.si_pid = ut_rt.pid;
	si.si_uid = getuid();
	si.si_value.sival_ptr =
		(void *)(((uint64_t)MIGRATE_MAGIC << 48) | ((uint64_t)round_no << 32) | i);
	return syscall(SYS_rt_tgsigqueueinfo, ut_rt.pid, tid, SIGTRAP, &si) == 0;
}

/* Has every thread asked answered, or ended since (its signal lost with it)? */
static bool all_answered(uint32_t n)
{
	char path[64];

	for (uint32_t i = 0; i < n; i++) {
		if (__atomic_load_n(&answered[i], __ATOMIC_ACQUIRE))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d", asked_tid[i]);
		if (!access(path, F_OK))
			return false;
	}
	return true;
}

/* Step 3: every other thread running user code is moved out of the moved bytes. */
static bool migrate(void)
{
	int self = (int)syscall(SYS_gettid);
	uint32_t n = 0, seen;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;

	if (!d)
		return false;
	__atomic_store_n(&round_no, (uint16_t)(round_no + 1), __ATOMIC_RELEASE);
	__atomic_store_n(&acks, 0, __ATOMIC_RELEASE);
	while ((de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid <= 0 || tid == self || !must_ask(tid))
			continue;
		if (n == MAX_ASKED)
			break;
		asked_tid[n] = tid;
		__atomic_store_n(&answered[n], 0, __ATOMIC_RELEASE);
		__atomic_store_n(&asked_n, n + 1, __ATOMIC_RELEASE); /* its trap may answer now */
		n += ask(tid, n);
	}
	closedir(d);
	__atomic_store_n(&asked_n, n, __ATOMIC_RELEASE);
	if (n == MAX_ASKED)
		return false;
	/* 2 s at most: a thread that does not answer makes the batch give up */
	for (int waits = 0; (seen = __atomic_load_n(&acks, __ATOMIC_ACQUIRE)) < n; waits++) {
		struct timespec wait = {0, 10000000L}; /* 10 ms */

		syscall(SYS_futex, &acks, FUTEX_WAIT, seen, &wait, NULL, 0);
		if (waits % 10 == 9 && all_answered(n))
			return true;
		if (waits >= 200)
			return false;
	}
	return true;
}

/* What goes at E (returned) for @pe: its kind's patch, into @out. */
static uint64_t patch_bytes(const struct ut_ool *pe, uint8_t *out)
{
	uint64_t e = pe->entry + pe->plan.skip;

	if (pe->jump_to)
		ut_pro_patch_jump(&pe->plan, e, pe->jump_to, out);
	else
		ut_pro_patch(&pe->plan, e, pe->slot, out);
	return e;
}

/* Steps 2-5 for the batch. */
static int install_batch(uint32_t n)
{
	const uint8_t trap = UT_ARCH_TRAP_BYTE;
	int ret = 0;

	uint32_t done = 0;

	__atomic_store_n(&batch_n, n, __ATOMIC_RELEASE);
	for (; done < n && !ret; done++) {
		uint64_t e = batch[done]->entry + batch[done]->plan.skip;

		batch[done]->first = *(const uint8_t *)e;
		/* before the int3: a thread trapping on it must find it ours */
		__atomic_store_n(&batch[done]->state, UT_OOL_TRAPPING, __ATOMIC_RELEASE);
		ret = ut_ool_poke(e, &trap, 1);
	}
	ut_patch_sync();
	bool moved = !ret && migrate();

	__atomic_store_n(&asked_n, 0, __ATOMIC_RELEASE);
	if (!moved) {
		for (uint32_t i = 0; i < done; i++) /* untouched but for the first byte */
			ut_ool_poke(batch[i]->entry + batch[i]->plan.skip, &batch[i]->first, 1);
		for (uint32_t i = 0; i < n; i++)
			batch[i]->state = UT_OOL_FAILED;
		ut_patch_sync();
		__atomic_store_n(&batch_n, 0, __ATOMIC_RELEASE);
		/* the handler may still send a thread that trapped to the slot: kept */
		return ret ? ret : -ETIMEDOUT;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint8_t patch[UT_PRO_MAX_INSN + 16];
		uint64_t e = patch_bytes(batch[i], patch);

		ret |= ut_ool_poke(e + 1, patch + 1, batch[i]->plan.moved - 1u);
	}
	ut_patch_sync();
	for (uint32_t i = 0; i < n; i++) {
		uint8_t patch[UT_PRO_MAX_INSN + 16];
		uint64_t e = patch_bytes(batch[i], patch);

		ret |= ut_ool_poke(e, patch, 1);
		batch[i]->state = UT_OOL_READY;
	}
	ut_patch_sync();
	__atomic_store_n(&batch_n, 0, __ATOMIC_RELEASE);
	return ret;
}

int ut_ool_install(struct ut_ool *const *v, uint32_t n)
{
	uint32_t max = sizeof(batch) / sizeof(batch[0]);
	int ret = 0;

	for (uint32_t at = 0; at < n && !ret; at += max) {
		uint32_t k = n - at < max ? n - at : max;

		for (uint32_t i = 0; i < k; i++)
			batch[i] = v[at + i];
		ret = install_batch(k);
	}
	return ret;
}

/**
 * ut_prologue_install - install the patches of the wanted functions
 *
 * Under ut_rt.lock, before the patcher's phases: afterwards every wanted
 * patched prologue is a site holding its nop (or is refused: want OFF).
 */
int ut_prologue_install(void)
{
	uint32_t n;
	int ret = 0;

	while (!ret && (n = gather())) {
		ret = install_batch(n);
		for (uint32_t i = 0; i < n; i++)
			if (batch[i]->state == UT_OOL_FAILED)
				batch_site[i]->want = UT_SITE_OFF;
	}
	if (ret)
		ut_log("patch-prologue: patches not installed (%s)", strerror(-ret));
	return ret;
}

/*
 * Where a thread that trapped on @a, the E of a patch that made it a jump
 * (an inlined instance, a short-form prologue) being installed or given
 * up, resumes: where the jump goes; 0 if @a is no such E.  (A prologue
 * with its site at E traps on the site: ut_prologue_resume().)
 * Async-signal-safe.
 */
uint64_t ut_ool_trap(uint64_t a)
{
	uint32_t n = __atomic_load_n(&ut_rt.nr_mods, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++) {
		const struct ut_module *m = ut_rt.mods[i];
		const struct ut_ool *e = m->kind_data;

		if ((m->kind != UT_KIND_INLINED && m->kind != UT_KIND_PROLOGUE) || !m->alive || !e)
			continue;
		for (uint32_t j = 0; j < m->nr_sites; j++)
			if (e[j].jump_to && e[j].entry + e[j].plan.skip == a &&
			    e[j].state != UT_OOL_PENDING)
				return e[j].jump_to;
	}
	return 0;
}

/* Where a thread that trapped on the site resumes: the moved instructions. */
uint64_t ut_prologue_resume(const struct ut_module *m, const struct ut_site *s)
{
	const struct ut_ool *pe = m->kind_data;

	return pe[s - m->sites].slot;
}
