/* SPDX-License-Identifier: MIT */
/*
 * Creating a session's control block (include/utrace/abi.h): shared by the
 * runtime (a traced process's session) and the CLI (the markers-only session
 * of a tool writing trace_marker).
 */
#ifndef UT_CTL_H
#define UT_CTL_H

#include <stdbool.h>
#include <stdint.h>

#include "utrace/abi.h"

/*
 * Create the control block file @name in the session directory @dirfd (new:
 * O_EXCL, never through a symbolic link; 0600), sized and mapped, with what
 * every session has filled in: version, size, pid, alive, tracing_on,
 * start_ns.  The caller fills in the rest, then ut_ctl_publish().  Returns
 * the mapping, or NULL with errno set.
 */
struct ut_ctl *ut_ctl_create(int dirfd, const char *name, uint64_t start_ns);

/* Readers accept a control block once its magic is there. */
void ut_ctl_publish(struct ut_ctl *ctl);

#endif
