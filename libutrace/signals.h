/* SPDX-License-Identifier: MIT */
#ifndef UT_SIGNALS_H
#define UT_SIGNALS_H

#include <stdbool.h>
#include <ucontext.h>

#include "libutrace/internal.h"

/*
 * Install our SIGTRAP handler.  @ours is asked first about every SIGTRAP and
 * returns true if it handled it (a thread hit a site being patched); other
 * traps go to the handler the program installed, which utrace remembers in
 * its sigaction()/signal() wrappers instead of letting it replace ours.
 */
int ut_signals_init(bool (*ours)(siginfo_t *si, ucontext_t *uc)) UT_HIDDEN;

#endif
