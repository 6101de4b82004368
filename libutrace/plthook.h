/* SPDX-License-Identifier: MIT */
/*
 * Library calls (plthook.c): one hook per library function called through
 * some object's GOT, shared by every object that calls it.
 */
#ifndef UT_PLTHOOK_H
#define UT_PLTHOOK_H

#include <stdbool.h>
#include <stdint.h>

/* One GOT slot that calls the function. */
struct ut_plt_slot {
	uint64_t *got;
	uint32_t ref;   /* the calling object: index into ut_rt.mods */
	bool relro;     /* read-only after relocation: written in a short RW window */
};

struct ut_plt_fn {
	uint64_t target;        /* the code to continue to: offset 0, plt_trampoline.S reads it */
	uint64_t ip;            /* its symbol's address in the defining object: what records carry */
	const uint64_t *tracer; /* its hooks module's stub slot: utrace_graph_caller or not */
	uint64_t stub;          /* where its GOT slots point while it is traced */
	struct ut_site *site;   /* in its hooks module (never moves) */
	struct ut_plt_slot *slots;
	uint32_t nr_slots, cap_slots;
	uint32_t def;           /* the defining object's index in ut_rt.mods */
	const char *name;       /* as the defining object's symbols name it (ut_func.name) */
};

/* tracers/plt.c: a traced library call enters the tracer (from utrace_plt_entry). */
void ut_plt_enter(const struct ut_plt_fn *fn, uint64_t *slot) UT_HIDDEN;

/* The tracers' C entries (tracers/function.c, tracers/function_graph.c). */
void ut_function_entry(uint64_t ip, uint64_t parent_ip) UT_HIDDEN;
void ut_graph_entry(uint64_t ip, uint64_t *slot) UT_HIDDEN;

#endif
