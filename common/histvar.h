/* SPDX-License-Identifier: MIT */
/*
 * Hist variables and actions (the kernel's Documentation/trace/histogram.rst,
 * "Inter-event hist triggers"): what a hist trigger may hold besides its
 * keys and values.
 *
 *   NAME=EXPR          a variable, set per key each hit: EXPR is up to four
 *                      operands joined by + - * / (* and / first, left to
 *                      right within a level; at most three operators, the
 *                      kernel's "Too many subexpressions (3 max)"), or
 *                      -(EXPR): a field, common_timestamp(.usecs), $VAR (a
 *                      variable of this trigger or of the matching event's),
 *                      a decimal constant. Constant subexpressions are folded
 *                      as the kernel folds them (x=16-8-4-2 is x=2)
 *   onmatch(SYS.EVT).trace(SYNTH,P1,..)   (or .SYNTH(P1,..), the older spelling)
 *                      when every $VAR the trigger reads is set for the key
 *                      in SYS.EVT's table: generate synthetic event SYNTH
 *                      with params P (a $VAR or a field of this event)
 *   onmax($VAR).save(F1,..)      a new maximum of $VAR for the key: keep the
 *   onchange($VAR).save(F1,..)   fields F of this event beside it
 *   onmax($VAR).snapshot()       a new maximum (onchange: a change) that also
 *   onchange($VAR).snapshot()    beats the last snapshot's value: a snapshot of
 *                                the trace (the mount's `snapshot` file)
 *
 * Parsed by common/evtrigger.c (ut_evtrig_parse) into struct ut_evtrig;
 * pure and malloc-free like it.
 */
#ifndef UT_HISTVAR_H
#define UT_HISTVAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UT_HIST_MAX_VARS 4   /* variables a trigger defines */
#define UT_HIST_MAX_OPS 4    /* operands: the kernel's three operators, "(3 max)" */
#define UT_HIST_MAX_PARAMS 8 /* an action's params */
#define UT_HIST_MAX_ACTIONS 2
#define UT_HIST_NAME_MAX 32

enum ut_hist_opkind {
	UT_HO_FIELD, /* an event field (or common_pid) */
	UT_HO_TS,    /* common_timestamp */
	UT_HO_VAR,   /* $name */
	UT_HO_CONST,
};

struct ut_hist_operand {
	uint8_t kind; /* enum ut_hist_opkind */
	bool usecs;   /* common_timestamp.usecs */
	char op;      /* '+' '-' '*' '/': how it joins the operands before it ('+' for the first) */
	char name[UT_HIST_NAME_MAX];
	uint64_t k; /* UT_HO_CONST's value */
};

struct ut_hist_var {
	char name[UT_HIST_NAME_MAX];
	uint8_t nops;
	bool neg; /* -(EXPR) */
	struct ut_hist_operand op[UT_HIST_MAX_OPS];
};

/*
 * The value of operands @o with values @x (@n of them) with the kernel's
 * precedence and u64 arithmetic; a division by zero is -1 (the kernel's
 * hist_field_div at run time).
 */
uint64_t ut_histvar_eval(const struct ut_hist_operand *o, const uint64_t *x, uint8_t n);

enum ut_hist_handler { UT_HH_ONMATCH = 1, UT_HH_ONMAX, UT_HH_ONCHANGE };
enum ut_hist_action_kind { UT_HA_TRACE = 1, UT_HA_SAVE, UT_HA_SNAPSHOT };

struct ut_hist_action {
	uint8_t handler; /* enum ut_hist_handler */
	uint8_t action;	 /* enum ut_hist_action_kind */
	bool trace_kw;	 /* written .trace(SYNTH,..), not .SYNTH(..) */
	uint8_t nparams;
	char sys[64], evt[64];	    /* onmatch's event */
	char var[UT_HIST_NAME_MAX]; /* onmax/onchange's variable (without $) */
	char synth[64];		    /* trace's synthetic event */
	char param[UT_HIST_MAX_PARAMS][UT_HIST_NAME_MAX]; /* "$var" or a field */
};

struct ut_evtrig_err;
struct ut_hist_defs {
	uint8_t nvars, nactions;
	bool timestamps; /* common_timestamp used: the kernel prints :clock= */
	struct ut_hist_var vars[UT_HIST_MAX_VARS];
	struct ut_hist_action act[UT_HIST_MAX_ACTIONS];
};

/*
 * One hist attribute of @n bytes at @s (offset @pos in the trigger's text)
 * if it is a variable or an action: 1 taken, 0 not one of them, -EINVAL
 * (with @err) if it is one but malformed.
 */
int ut_histvar_attr(struct ut_hist_defs *d, const char *s, size_t n, size_t pos,
		    struct ut_evtrig_err *err);

/* The variable named @name of @d, or NULL. */
const struct ut_hist_var *ut_histvar_find(const struct ut_hist_defs *d, const char *name);

/* ":NAME=EXPR,..." then (after :size=) the actions, as the kernel prints them, onto @buf at *@n. */
void ut_histvar_print_vars(const struct ut_hist_defs *d, char *buf, size_t len, size_t *n);
void ut_histvar_print_actions(const struct ut_hist_defs *d, char *buf, size_t len, size_t *n);

#endif
