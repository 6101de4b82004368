/* SPDX-License-Identifier: MIT */
/*
 * A session directory's name: "PID.NS", the pid of the process that made it
 * and the CLOCK_MONOTONIC time it was made at, so that the sessions of one
 * pid are found by name without mapping every other session's control block,
 * and two images of one pid (exec, pid reuse) are told apart and ordered.
 * Made by the runtime (libutrace/session.c) and a markers-only writer
 * (common/marker.c); read by the listing (common/control.c) and record
 * (reader/recorder.c).
 */
#ifndef UT_SESSNAME_H
#define UT_SESSNAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest name, its NUL included. */
#define UT_SESSNAME_MAX 32

/* Write @pid's session name made at @born_ns into @buf (UT_SESSNAME_MAX bytes fit any). */
void ut_sessname_make(char *buf, size_t len, int32_t pid, uint64_t born_ns);

/*
 * Read @name: true, with *@pid and *@born_ns (either may be NULL), if it is a
 * session's name; false for any other directory entry.
 */
bool ut_sessname_parse(const char *name, int32_t *pid, uint64_t *born_ns);

#endif
