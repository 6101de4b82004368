/* SPDX-License-Identifier: MIT */
/* A plain program's default: patched prologues (cli/plain.c). */
#ifndef UT_PLAIN_H
#define UT_PLAIN_H

#include <stdbool.h>

/*
 * Whether @prog is a plain build that patched prologues can trace: an ELF
 * program without a compiler site (named or stripped), with functions a
 * patched prologue takes in it or in the libraries it loads at start, and
 * not a shell or launcher that runs others (bash, env, timeout...).
 */
bool ut_plain_traceable(const char *prog);

/*
 * Whether @prog is an ELF program without an interpreter (linked statically):
 * libutrace.so cannot be preloaded into it.  (A shared object has none
 * either, and is taken for one: it is no program to run.)
 */
bool ut_static_program(const char *prog);

struct ut_cfg;
/*
 * Whether @c (with @profile: the profiler's) traces functions, and so may
 * take the default: not a record of events alone, nor one of probes
 * (-e, --trigger: an interpreter's USDT probes), which is about them.
 */
bool ut_plain_wanted(const struct ut_cfg *c, bool profile);
/*
 * Unless -O [no]patch-prologue was given (@said) or @c patches prologues
 * already: if @prog (a path; /proc/PID/exe for a running process) is a
 * plain build, turn @c's patch_prologue on and say so, naming @who.
 */
bool ut_plain_default(struct ut_cfg *c, bool said, const char *prog, const char *who);
/*
 * @c for running process @pid (start -P, record -P): @c itself, or @buf, a
 * copy sharing @c's strings (not to be freed) with ut_plain_default()'s
 * patch_prologue.  A configuration that traces no function is @c.
 */
const struct ut_cfg *ut_plain_for_process(int pid, const struct ut_cfg *c, bool said,
					  struct ut_cfg *buf);

#endif
