// SPDX-License-Identifier: MIT
/*
 * Programs built with -pg -mfentry for their sites, without gprof's side
 * effects.  -pg also links gcrt1.o, whose start-up calls __monstartup()
 * (gprof's histogram: a SIGPROF timer through profil()) and registers
 * _mcleanup() with atexit(), which writes gmon.out into the working
 * directory at exit.  Under utrace the -pg is only a way to get a call to
 * __fentry__ at each function's entry (g++ 12 cannot link some C++ programs
 * with -fpatchable-function-entry, see `utrace help cflags`), so a traced
 * program keeps neither: both are interposed here (libutrace is loaded
 * before libc) and do nothing.  glibc's __fentry__, which a site calls
 * until the runtime has turned it into a nop, returns at once while gprof
 * has not started.
 */
#include "internal.h"

void ut_monstartup(unsigned long lowpc, unsigned long highpc) __asm__("__monstartup");
void ut_mcleanup(void) __asm__("_mcleanup");

__attribute__((visibility("default"))) void ut_monstartup(unsigned long lowpc, unsigned long highpc)
{
	(void)lowpc;
	(void)highpc;
}

__attribute__((visibility("default"))) void ut_mcleanup(void)
{
}
