// SPDX-License-Identifier: MIT
/*
 * A process event's fields as the triggers see an event (common/evtrigger.h,
 * common/evtrigger_filter.h): one 8-byte slot per field, named as the
 * kernel names it (parent_pid, child_pid, comm...), numbers sign- or
 * zero-extended from their size, strings and char arrays as a number (a
 * trigger's filter sees slots, not strings, as it does for USDT probes).
 * Read from the format's own field lines, so the two cannot disagree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/procev_fields.h"

/* The decimal after @key in the line at @s (no locale, no allocation: signal-safe). */
static unsigned number_after(const char *s, const char *key)
{
	const char *end = strchr(s, '\n'), *k = strstr(s, key);
	unsigned v = 0;

	if (!k || (end && k > end))
		return 0;
	for (k += strlen(key); *k >= '0' && *k <= '9'; k++)
		v = v * 10 + (unsigned)(*k - '0');
	return v;
}

/* One "\tfield:TYPE NAME;\toffset:O;\tsize:S;\tsigned:G;\n" line at *@p; false at the end. */
static bool next_field(const char **p, char name[UT_USDT_NAME_MAX], unsigned *off,
		       unsigned *size, bool *is_signed, bool *is_str)
{
	const char *l = strstr(*p, "field:"), *semi, *sp, *br;
	unsigned sg = 0;

	if (!l || !(semi = strchr(l, ';')))
		return false;
	for (sp = semi; sp > l && sp[-1] != ' '; sp--)
		;
	br = memchr(sp, '[', (size_t)(semi - sp));
	snprintf(name, UT_USDT_NAME_MAX, "%.*s", (int)((br ? br : semi) - sp), sp);
	sp = strstr(l, "__data_loc");
	*is_str = br || (sp && sp < semi);
	*off = number_after(semi, "offset:");
	*size = number_after(semi, "size:");
	sg = number_after(semi, "signed:");
	*is_signed = sg != 0;
	*p = strchr(semi, '\n') ? strchr(semi, '\n') + 1 : semi + strlen(semi);
	return true;
}

bool ut_procev_evfmt(const struct ut_procev *e, struct ut_evfmt *f)
{
	const char *p = e->fields;
	char name[UT_USDT_NAME_MAX];
	unsigned off, size;
	bool sg, str;

	memset(f, 0, sizeof(*f));
	snprintf(f->system, sizeof(f->system), "%s", e->system);
	snprintf(f->name, sizeof(f->name), "%s", e->name);
	f->id = e->id;
	while (f->nargs < UT_USDT_MAX_ARGS && next_field(&p, name, &off, &size, &sg, &str)) {
		unsigned i = f->nargs++;

		memcpy(f->argname[i], name, sizeof(f->argname[i]));
		f->size[i] = (uint8_t)(str || size > 8 ? 8 : size);
		f->is_signed[i] = sg && !str;
	}
	return true;
}

bool ut_procev_evfmt_named(const char *sys, const char *evt, struct ut_evfmt *f)
{
	const struct ut_procev *e = ut_procev_find(sys, evt);

	return e && e->id != UT_PEV_PRINT && ut_procev_evfmt(e, f);
}

unsigned ut_procev_slots(const struct ut_procev *e, const uint8_t *rec, size_t len,
			 uint64_t *slots)
{
	const char *p = e->fields;
	char name[UT_USDT_NAME_MAX];
	unsigned off, size, n = 0;
	bool sg, str;

	while (n < UT_USDT_MAX_ARGS && next_field(&p, name, &off, &size, &sg, &str)) {
		uint64_t v = 0;

		if (!str && size && size <= 8 && off + size <= len) {
			memcpy(&v, rec + off, size);
			if (sg && size < 8 && (v >> (8 * size - 1) & 1))
				v |= ~0ull << (8 * size);
		}
		slots[n++] = v;
	}
	return n;
}
