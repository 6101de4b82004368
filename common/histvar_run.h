/* SPDX-License-Identifier: MIT */
/*
 * What a hist trigger's variables do at a hit (histogram.rst, "Inter-event
 * hist triggers"), for both runners of triggers: the traced process
 * (libutrace/histvar.c, its tables in shared memory) and the mount, which
 * runs the triggers of trace_marker's event (tracefs/marker_vars.c).
 * Each keeps its own tables; the rules are here:
 *
 *  - where a $VAR is read from: a variable of the trigger itself, defined
 *    before it in the trigger; else a variable of another hist trigger of
 *    the same scope, which must be on the onmatch() event if the trigger
 *    has one (ut_histvar_source);
 *  - the variables' values, in their order, an expression's operators
 *    with the kernel's precedence (ut_histvar_eval), -(EXPR) negated
 *    (ut_histvar_values); a $ref that is not set drops the whole hit;
 *  - a variable is kept per entry (struct ut_hist_vars beside it, the
 *    value then its bit in `set`) and read once: the reader clears the bit
 *    (ut_hist_var_put, ut_hist_var_take; atomic, for the process's threads).
 *
 * Pure: the runner supplies what depends on its tables and the hit.
 */
#ifndef UT_HISTVAR_RUN_H
#define UT_HISTVAR_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "common/evtrigger.h"
#include "utrace/abi.h"

/*
 * Whether hist trigger @o, on event @sys:@evt, is where trigger @self
 * (another one) reads its $@name from: the variable's index in @o, or -1.
 */
int ut_histvar_source(const struct ut_evtrig *self, const struct ut_evtrig *o, const char *sys,
		      const char *evt, const char *name);

/*
 * An operand's value for a hit: operand @j of variable @i of the trigger
 * (a field, common_timestamp or another trigger's $VAR) into *@x; false
 * if it has none (a $ref not set: the hit is dropped).
 */
typedef bool (*ut_histvar_operand_fn)(void *ctx, unsigned i, unsigned j, uint64_t *x);

/*
 * The values of @d's variables for a hit into @val (d->nvars): constants
 * and $refs to earlier variables of @d here, the other operands from
 * @fn.  False if @fn said the hit is dropped (@val then partly written).
 */
bool ut_histvar_values(const struct ut_hist_defs *d, ut_histvar_operand_fn fn, void *ctx,
		       uint64_t *val);

/* Variable @idx of an entry (@v beside it) set to @x. */
void ut_hist_var_put(struct ut_hist_vars *v, unsigned idx, uint64_t x);

/* Variable @idx of an entry read once into *@x: false if it is not set (then unchanged). */
bool ut_hist_var_take(struct ut_hist_vars *v, unsigned idx, uint64_t *x);

#endif
