// SPDX-License-Identifier: MIT
/*
 * What record, profile and list do with a plain program when -O
 * [no]patch-prologue is not given.  A program built without sites (a Debian
 * binary, a vendor's build, last month's -O2) is traced through patched
 * prologues: its functions and those of the libraries it loads (not libc's
 * nor the loader's), much as `uftrace record -P .` patches a program's, so that
 * `utrace record -- /usr/bin/xz` records xz and liblzma with no option.
 * A program with sites is traced through them alone, as before: its user
 * chose what to build with sites, and the libraries it loads stay out
 * unless -O patch-prologue asks for them.  A program none of whose functions
 * a prologue can take (a stripped shell: libc's are never patched) is left
 * alone: whatever it runs brings its own sites, or is looked at as it starts.
 * So are the shells and launchers that are there to run others (`record --
 * bash -c ./prog`, `env`, `timeout`): bash exports 1830 functions, which
 * would cost the record half a second to patch and fill its trace with the
 * shell's calls.  -O patch-prologue traces them all the same.
 * Library calls are not part of this default (as for a program with sites,
 * -O plt or a filter word naming one turns them on): a plain build and a
 * build with sites then record the same functions.
 */
#include "cli/plain.h"

#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/config.h"
#include "common/elfsites.h"
#include "common/prologue.h"
#include "common/symbols.h"
#include "utrace/abi.h"

/* Whether @prog (its file, symbolic links followed: /bin/sh is dash) runs other programs. */
static bool runner(const char *prog)
{
	static const char *const names[] = {
		"sh",	  "bash",  "dash",    "zsh",   "ksh",	 "mksh",  "fish",  "busybox",
		"env",	  "nohup", "nice",    "setsid", "stdbuf", "taskset", "timeout", "time",
		"chrt",	  "ionice", "xargs",  "sudo",  "su",	 "runuser", "flock", "unshare",
		"nsenter", "chroot", "strace", "ltrace", "valgrind", "gdb"};
	char real[PATH_MAX];
	const char *base;

	if (!realpath(prog, real))
		snprintf(real, sizeof(real), "%s", prog);
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(base, names[i]))
			return true;
	return false;
}

/*
 * Whether @path names functions a patched prologue may take: function
 * symbols (.symtab, else .dynsym's exports) of an object that is patched at
 * all.  The planner may still refuse each (list -f --untraceable says why);
 * planning every function of a large program here, before the runtime does
 * it again, took half a second for python3.
 */
static bool names_functions(const char *path)
{
	struct ut_symtab *st;
	bool any;

	if (ut_pro_module_refused(path))
		return false;
	st = ut_symtab_new();
	any = st && ut_symtab_load_elf(st, path, 0, NULL) > 0;
	ut_symtab_free(st);
	return any;
}

bool ut_static_program(const char *prog)
{
	int fd = elf_version(EV_CURRENT) != EV_NONE ? open(prog, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
						     : -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	bool exec = false, interp = false;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	size_t n = 0;

	if (elf && elf_kind(elf) == ELF_K_ELF && gelf_getehdr(elf, &eh) &&
	    (eh.e_type == ET_EXEC || eh.e_type == ET_DYN) && !elf_getphdrnum(elf, &n)) {
		exec = true;
		for (size_t i = 0; i < n && !interp; i++)
			interp = gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return exec && !interp;
}

bool ut_plain_traceable(const char *prog)
{
	struct ut_objlist l;
	bool found;

	if (runner(prog) || ut_static_program(prog) || ut_elfsites_any(prog) != 0 ||
	    ut_elfsites_instrumented(prog))
		return false; /* sites, a script (not ELF), or unreadable */
	if (names_functions(prog))
		return true;
	/* a stripped program: the functions of the libraries it loads */
	if (ut_elfsites_objects(prog, false, true, &l))
		return false;
	found = false;
	for (size_t i = 0; i < l.n && !found; i++)
		found = names_functions(l.v[i].path);
	ut_objlist_free(&l);
	return found;
}

bool ut_plain_wanted(const struct ut_cfg *c, bool profile)
{
	return (c->tracer != UT_TRACER_NOP || profile) && !c->events && !c->triggers;
}

bool ut_plain_default(struct ut_cfg *c, bool said, const char *prog, const char *who)
{
	if (said || c->patch_prologue || !ut_plain_traceable(prog))
		return false;
	c->patch_prologue = true;
	ut_err("note: %s has no compiler sites: its functions and its libraries' are traced "
	       "through patched prologues (-O patch-prologue; -O nopatch-prologue: not)",
	       who);
	return true;
}

const struct ut_cfg *ut_plain_for_process(int pid, const struct ut_cfg *c, bool said,
					  struct ut_cfg *buf)
{
	char exe[64], who[64];

	if (!ut_plain_wanted(c, c->profile))
		return c;
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	snprintf(who, sizeof(who), "process %d", pid);
	*buf = *c;
	return ut_plain_default(buf, said, exe, who) ? buf : c;
}
