/* SPDX-License-Identifier: MIT */
/*
 * Shared by the test programs: functions that stay real, separately traced
 * calls (no inlining, cloning, IPA renaming such as .constprop/.isra).
 */
#ifndef TESTS_PROGS_H
#define TESTS_PROGS_H

#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noipa))
#endif

/* Side effects the compiler cannot remove. */
extern volatile long prog_sink;
#define SINK(x) (prog_sink += (long)(x))
#define DEFINE_SINK volatile long prog_sink

#endif
