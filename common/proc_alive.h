/* SPDX-License-Identifier: MIT */
/*
 * Whether the process a session belongs to still runs, by pid and start
 * time (docs/shm-abi.md, "Dead processes"): not by asking its agent, which a
 * process killed by SIGKILL no longer has.
 */
#ifndef UT_PROC_ALIVE_H
#define UT_PROC_ALIVE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * True if process @pid runs (not a zombie) and started no later than
 * @session_mono_ns (CLOCK_MONOTONIC ns, when its session was made): a pid
 * recycled by a newer process is not ours.
 */
bool ut_proc_alive(int32_t pid, uint64_t session_mono_ns);

/* The calling process's number of threads (/proc/self/stat), -1 if unknown. */
int ut_proc_threads(void);

#endif
