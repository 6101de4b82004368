// SPDX-License-Identifier: MIT
/*
 * The function-command table (set_ftrace_filter's FUNC:CMD[:N]) and the
 * counts it keeps across configuration changes.
 *
 * The configuration holds the words written to set_ftrace_filter, which each
 * change replays from the start over new sets (select.c).  Replayed alone,
 * "f:traceoff:2" would come back with its count at 2 after every change,
 * where the kernel keeps the count a command has left until "!f:traceoff:0"
 * removes it.  So the count of a command that lives on is carried over from
 * the table in force: the new list of words begins with words already
 * applied (">>" adds after them; ">" keeps the command words of the old list,
 * tracefs/funcs.c), the replay stops after those, takes the counts of the
 * commands that exist at that point from the table, and goes on with the
 * new words, which may remove a command or add a fresh one, as in the
 * kernel.
 *
 * The table is the session's shared file "cmds" (include/utrace/abi.h): the
 * tracers count down in it (tracers/commands.c), and readers list the
 * counts from it.  Under ut_rt.lock.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/filter.h"
#include "libutrace/internal.h"

/* The filter text whose commands the table holds. */
static char *applied;

/* The number of leading words of @list that are words of @of, in order. */
static size_t common_words(const char *list, const char *of, bool cmds_only)
{
	size_t n = 0, a = 0, b = 0;
	const char *p = ut_cfg_word(list, &a), *q = ut_cfg_word(of, &b);

	for (; q; q = ut_cfg_word(q + b, &b)) {
		if (cmds_only && !ut_fset_word_is_cmd(q, b))
			continue;
		if (!p || a != b || memcmp(p, q, a) != 0)
			return SIZE_MAX;
		n++;
		p = ut_cfg_word(p + a, &a);
	}
	return n;
}

size_t ut_cmds_retained(const char *filter)
{
	size_t n;

	if (!applied)
		return 0;
	n = common_words(filter, applied, false);
	if (n == SIZE_MAX)
		n = common_words(filter, applied, true);
	return n == SIZE_MAX ? 0 : n;
}

/* The site of table entry @func, or 0 if its module is gone. */
static uint64_t func_site(size_t func)
{
	const struct ut_func *f;
	const struct ut_module *m;

	if (func >= ut_rt.nr_funcs)
		return 0;
	f = &ut_rt.funcs[func];
	m = ut_rt.mods[f->mod];
	return m && m->alive && m->sites ? m->sites[f->site].addr : 0;
}

void ut_cmds_carry(struct ut_fset *filter)
{
	uint32_t nr = __atomic_load_n(&ut_rt.nr_cmds, __ATOMIC_ACQUIRE);
	size_t n = 0;
	struct ut_fcmd *c = ut_fset_cmds(filter, &n);

	if (!ut_rt.cmds)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t ip = func_site(c[i].func);

		for (uint32_t k = 0; ip && k < nr && k < UT_CMDS_MAX; k++) {
			const struct ut_cmd_entry *e = &ut_rt.cmds->e[k];

			if (e->ip == ip && !e->inst && e->type == c[i].type &&
			    e->counted == c[i].counted) {
				c[i].count = __atomic_load_n(&e->count, __ATOMIC_RELAXED);
				break;
			}
		}
	}
}

static void entry_set(struct ut_cmd_entry *e, const struct ut_fcmd *c, uint64_t ip, uint32_t inst)
{
	const struct ut_func *f = &ut_rt.funcs[c->func];

	e->ip = ip;
	e->type = c->type;
	e->counted = c->counted;
	e->count = c->counted ? c->count : -1;
	e->inst = inst;
	snprintf(e->func, sizeof(e->func), "%s", f->name);
	snprintf(e->module, sizeof(e->module), "%s", f->module ? f->module : "");
}

/* The commands of @s (instance @inst's, 0: the top level's) into @t from entry *@k on. */
static void publish_set(struct ut_cmds *t, struct ut_fset *s, uint32_t inst, uint32_t *k)
{
	size_t n = 0;
	struct ut_fcmd *c = s ? ut_fset_cmds(s, &n) : NULL;

	for (size_t i = 0; i < n && *k < UT_CMDS_MAX; i++) {
		uint64_t ip = func_site(c[i].func);

		if (ip)
			entry_set(&t->e[(*k)++], &c[i], ip, inst);
	}
}

void ut_cmds_publish(struct ut_fset *filter, struct ut_fset *const *ifilter)
{
	struct ut_cmds *t = ut_rt.cmds;
	uint32_t k = 0;

	__atomic_store_n(&ut_rt.nr_cmds, 0, __ATOMIC_RELEASE);
	if (!t)
		return;
	__atomic_add_fetch(&t->gen, 1, __ATOMIC_ACQ_REL); /* odd: being rewritten */
	publish_set(t, filter, 0, &k);
	for (uint32_t i = 1; i < UT_MAX_INST; i++)
		publish_set(t, ifilter[i], i, &k);
	__atomic_store_n(&t->nr, k, __ATOMIC_RELEASE);
	__atomic_add_fetch(&t->gen, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&ut_rt.nr_cmds, k, __ATOMIC_RELEASE);
}

void ut_cmds_applied(const char *text)
{
	char *dup = text ? strdup(text) : NULL;

	free(applied);
	applied = dup;
}

bool ut_cmds_has(uint64_t addr)
{
	for (uint32_t i = 0; ut_rt.cmds && i < ut_rt.nr_cmds; i++)
		if (ut_rt.cmds->e[i].ip == addr)
			return true;
	return false;
}
