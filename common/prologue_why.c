// SPDX-License-Identifier: MIT
/*
 * Why a filter word names no function even with -O patch-prologue: the
 * functions it names are refused a patch, each for its reason
 * (common/prologue.h), said after the error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/elfsites.h"
#include "common/glob.h"
#include "common/prologue.h"
#include "common/symbols.h"

struct why_ctx {
	struct ut_glob g;
	const struct ut_obj *obj;
	char *text;
	size_t len;
};

static void said(void *ctx, const struct ut_sym *s, enum ut_pro_why why,
		 const struct ut_pro_plan *p)
{
	struct why_ctx *c = ctx;
	char line[512];
	int n;
	char *t;

	(void)p;
	if (why == UT_PRO_OK || !ut_glob_match(&c->g, s->name))
		return;
	n = snprintf(line, sizeof(line), "  %s%s%s%s: no patched prologue either: %s\n", s->name,
		     c->obj->module[0] ? " [" : "", c->obj->module, c->obj->module[0] ? "]" : "",
		     ut_pro_why_text(why));
	if (n <= 0 || (size_t)n >= sizeof(line) || !(t = realloc(c->text, c->len + (size_t)n + 1)))
		return;
	memcpy(t + c->len, line, (size_t)n + 1);
	c->text = t;
	c->len += (size_t)n;
}

char *ut_pro_why_word(const char *word, const struct ut_obj *objs, size_t n)
{
	struct why_ctx c = {0};

	if (ut_glob_compile(&c.g, word))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		c.obj = &objs[i];
		ut_elfsites_prologues(objs[i].path, objs[i].module[0] ? objs[i].module : NULL, said,
				      &c);
	}
	ut_glob_free(&c.g);
	return c.text;
}
