// SPDX-License-Identifier: MIT
/*
 * What trampoline.S's fast paths know of the C structures: the offsets and
 * constants in arch/x86_64/hot_layout.h, checked here at build time.  A
 * struct that changes stops the build at one of these assertions; then
 * scripts/hot-layout.sh rebuilds this file as a program that prints the
 * header anew (UT_HOT_LAYOUT_PRINT).  The widths the assembly assumes
 * (a 32-bit top, a 64-bit head, ...) are asserted too: those need the
 * assembly itself changed.
 */
#include <stddef.h>

#include "libutrace/internal.h"
#include "libutrace/plthook.h"

/* name, value: every constant of hot_layout.h */
#define UT_HOT_LAYOUT(X)                                                     \
	X(T_DATA, offsetof(struct ut_thread, data))                          \
	X(T_MASK, offsetof(struct ut_thread, mask))                          \
	X(T_HEAD, offsetof(struct ut_thread, head))                          \
	X(T_LIMIT, offsetof(struct ut_thread, limit))                        \
	X(T_HDR, offsetof(struct ut_thread, hdr))                            \
	X(T_BUSY, offsetof(struct ut_thread, busy))                          \
	X(T_LAST_TS, offsetof(struct ut_thread, last_ts))                    \
	X(T_SHADOW, offsetof(struct ut_thread, shadow))                      \
	X(T_PID_GEN, offsetof(struct ut_thread, pid_gen))                    \
	X(T_PROF, offsetof(struct ut_thread, prof))                          \
	X(SH_TOP, offsetof(struct ut_shadow, top))                           \
	X(SH_HIDDEN, offsetof(struct ut_shadow, hidden))                     \
	X(SH_OVERRUN, offsetof(struct ut_shadow, overrun))                   \
	X(SH_HI, offsetof(struct ut_shadow, hi))                             \
	X(SH_BASE, offsetof(struct ut_shadow, base))                         \
	X(SH_F, offsetof(struct ut_shadow, f))                               \
	X(SH_DEPTH, UT_SHADOW_DEPTH)                                         \
	X(F_SIZE, sizeof(struct ut_shadow_frame))                            \
	X(F_RET, offsetof(struct ut_shadow_frame, ret))                      \
	X(F_SLOT, offsetof(struct ut_shadow_frame, slot))                    \
	X(F_FUNC, offsetof(struct ut_shadow_frame, func))                    \
	X(F_CALLTIME, offsetof(struct ut_shadow_frame, calltime))            \
	X(F_DEPTH, offsetof(struct ut_shadow_frame, depth))                  \
	X(F_FLAGS, offsetof(struct ut_shadow_frame, flags))                  \
	X(F_CHILD, offsetof(struct ut_shadow_frame, child))                  \
	X(F_PROF, offsetof(struct ut_shadow_frame, prof))                    \
	X(BH_HEAD, offsetof(struct ut_buf_hdr, head))                        \
	X(BH_WRITTEN, offsetof(struct ut_buf_hdr, written))                  \
	X(CTL_TRACING_ON, offsetof(struct ut_ctl, tracing_on))               \
	X(RT_CTL, offsetof(struct ut_runtime, ctl))                          \
	X(RT_CLOCK, offsetof(struct ut_runtime, cfg.clock))                  \
	X(RT_PROFILE, offsetof(struct ut_runtime, cfg.profile))              \
	X(RT_TRACER, offsetof(struct ut_runtime, cfg.tracer))                \
	X(TRACER_GRAPH, UT_TRACER_FUNCTION_GRAPH)                            \
	X(RT_FUNC_STACK, offsetof(struct ut_runtime, cfg.func_stack))        \
	X(RT_SLEEP_TIME, offsetof(struct ut_runtime, cfg.sleep_time))        \
	X(RT_RSEQ_CPU_OFF, offsetof(struct ut_runtime, rseq_cpu_off))        \
	X(RT_GRAPH_FILTERED, offsetof(struct ut_runtime, graph.filtered))    \
	X(RT_GRAPH_MAX_DEPTH, offsetof(struct ut_runtime, graph.max_depth))  \
	X(RT_GRAPH_THRESH, offsetof(struct ut_runtime, graph.thresh))        \
	X(RT_PID_GEN, offsetof(struct ut_runtime, pid_gen))                  \
	X(RT_NR_CMDS, offsetof(struct ut_runtime, nr_cmds))                  \
	X(RT_NR_INST, offsetof(struct ut_runtime, nr_inst))                  \
	X(PF_IP, offsetof(struct ut_plt_fn, ip))                             \
	X(PF_TRACER, offsetof(struct ut_plt_fn, tracer))                     \
	X(PH_NR_ENTRIES, offsetof(struct ut_prof_hdr, nr_entries))           \
	X(PH_SIZE, sizeof(struct ut_prof_hdr))                               \
	X(PE_IP, offsetof(struct ut_prof_entry, ip))                         \
	X(PE_HITS, offsetof(struct ut_prof_entry, hits))                     \
	X(PE_TIME, offsetof(struct ut_prof_entry, time))                     \
	X(PE_SELF, offsetof(struct ut_prof_entry, self))                     \
	X(PE_TIME_SQ, offsetof(struct ut_prof_entry, time_sq))               \
	X(PE_SELF_SQ, offsetof(struct ut_prof_entry, self_sq))               \
	X(PROF_HASH_MUL, UT_PROF_HASH_MUL)                                   \
	X(PROF_HASH_SHIFT, UT_PROF_HASH_SHIFT)                               \
	X(REC_SIZE, UT_REC_SIZE)                                             \
	X(REC_EXIT_SIZE, UT_REC_EXIT_SIZE)                                   \
	X(REC_DELTA_MAX, UT_REC_DELTA_MAX)

#ifdef UT_HOT_LAYOUT_PRINT
#include <stdio.h>

#define UT_HOT_PRINT(name, value) printf("#define %s 0x%llx\n", #name, (unsigned long long)(value));

int main(void)
{
	printf("/* SPDX-License-Identifier: MIT */\n"
	       "/* Generated by scripts/hot-layout.sh from libutrace/tracers/hot_layout.c:"
	       " do not edit. */\n"
	       "#ifndef UT_HOT_LAYOUT_H\n#define UT_HOT_LAYOUT_H\n");
	UT_HOT_LAYOUT(UT_HOT_PRINT)
	printf("#endif\n");
	return 0;
}
#else
#include "hot_layout.h"

#define UT_HOT_CHECK(name, value)                                                         \
	_Static_assert((value) == (name), "arch/x86_64/hot_layout.h: " #name                  \
					  " is out of date (run scripts/hot-layout.sh)");
UT_HOT_LAYOUT(UT_HOT_CHECK)

#define UT_HOT_WIDTH(type, field, bytes)                                                  \
	_Static_assert(sizeof(((type *)0)->field) == (bytes),                                 \
		       "trampoline.S reads " #type "." #field " as " #bytes " bytes");
/* The widths trampoline.S reads and writes them with. */
UT_HOT_WIDTH(struct ut_thread, busy, 4)
UT_HOT_WIDTH(struct ut_thread, pid_gen, 4)
UT_HOT_WIDTH(struct ut_thread, head, 8)
UT_HOT_WIDTH(struct ut_shadow, top, 4)
UT_HOT_WIDTH(struct ut_shadow, hidden, 4)
UT_HOT_WIDTH(struct ut_shadow, base, 4)
UT_HOT_WIDTH(struct ut_shadow_frame, depth, 4)
UT_HOT_WIDTH(struct ut_shadow_frame, flags, 4)
UT_HOT_WIDTH(struct ut_ctl, tracing_on, 4)
UT_HOT_WIDTH(struct ut_runtime, cfg.clock, 4)
UT_HOT_WIDTH(struct ut_runtime, cfg.profile, 1)
UT_HOT_WIDTH(struct ut_runtime, cfg.tracer, 4)
UT_HOT_WIDTH(struct ut_runtime, cfg.func_stack, 1)
UT_HOT_WIDTH(struct ut_runtime, cfg.sleep_time, 1)
UT_HOT_WIDTH(struct ut_prof_hdr, nr_entries, 4)
UT_HOT_WIDTH(struct ut_runtime, graph.filtered, 1)
UT_HOT_WIDTH(struct ut_runtime, graph.max_depth, 4)
UT_HOT_WIDTH(struct ut_runtime, graph.thresh, 8)
UT_HOT_WIDTH(struct ut_runtime, pid_gen, 4)
UT_HOT_WIDTH(struct ut_runtime, nr_cmds, 4)
UT_HOT_WIDTH(struct ut_runtime, nr_inst, 4)
UT_HOT_WIDTH(struct ut_runtime, rseq_cpu_off, 8)
/* One 8-byte store writes a frame's depth and zero flags. */
_Static_assert(offsetof(struct ut_shadow_frame, flags) ==
		       offsetof(struct ut_shadow_frame, depth) + 4, "depth, flags adjacent");
/* The profiler's row: 64 bytes (shl $6), found as ut_prof_home() finds it. */
_Static_assert(sizeof(struct ut_prof_entry) == 64, "profiler row size");
/* The gate ORs the clock in: the TSC clock must be 0. */
_Static_assert(UT_CLOCK_LOCAL == 0, "UT_CLOCK_LOCAL is 0");
/* Record words as trampoline.S builds them (bts 60/61 for the type). */
_Static_assert(UT_REC_FUNCTION == 1 && UT_REC_GRAPH_ENTRY == 2 && UT_REC_GRAPH_EXIT == 3,
	       "record types");
_Static_assert(UT_REC_TYPE_SHIFT == 60 && UT_REC_CPU_SHIFT == 48 && UT_REC_CPU_MASK == 0xfff &&
		       UT_REC_DELTA_SHIFT == 48 && UT_REC_ADDR_MASK == (1ULL << 48) - 1,
	       "record word layout");
#endif
