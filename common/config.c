// SPDX-License-Identifier: MIT
/* The configuration document (common/config.h): parsing and formatting. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "common/config.h"
#include "common/cxxname.h"
#include "common/names.h"

void ut_cfg_init(struct ut_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->tracer = UT_TRACER_NOP;
	c->clock = UT_CLOCK_LOCAL;
	c->buf_kb = 1408;
	c->overwrite = true;
	c->tracing_on = true;
	c->sleep_time = true;
}

void ut_cfg_free(struct ut_cfg *c)
{
	free(c->filter);
	free(c->notrace);
	free(c->graph_function);
	free(c->graph_notrace);
	free(c->events);
	free(c->triggers);
	free(c->synth);
	for (uint32_t i = 0; i < c->nr_evf; i++) {
		free(c->evf[i].event);
		free(c->evf[i].prog);
		free(c->evf[i].text);
	}
	free(c->evf);
	ut_cfg_init(c);
}

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int ut_cfg_copy(struct ut_cfg *dst, const struct ut_cfg *src)
{
	*dst = *src;
	dst->filter = dst->notrace = dst->graph_function = dst->graph_notrace = dst->events = NULL;
	dst->triggers = dst->synth = NULL;
	dst->evf = NULL;
	dst->nr_evf = 0;
	if (dup_str(&dst->filter, src->filter) || dup_str(&dst->notrace, src->notrace) ||
	    dup_str(&dst->graph_function, src->graph_function) ||
	    dup_str(&dst->graph_notrace, src->graph_notrace) ||
	    dup_str(&dst->events, src->events) || dup_str(&dst->triggers, src->triggers) ||
	    dup_str(&dst->synth, src->synth)) {
		ut_cfg_free(dst);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < src->nr_evf; i++)
		if (ut_cfg_set_evf(dst, src->evf[i].event, src->evf[i].prog, src->evf[i].text)) {
			ut_cfg_free(dst);
			return -ENOMEM;
		}
	return 0;
}

const struct ut_cfg_evf *ut_cfg_find_evf(const struct ut_cfg *c, const char *event)
{
	for (uint32_t i = 0; i < c->nr_evf; i++)
		if (!strcmp(c->evf[i].event, event))
			return &c->evf[i];
	return NULL;
}

int ut_cfg_set_evf(struct ut_cfg *c, const char *event, const char *prog, const char *text)
{
	struct ut_cfg_evf *e = (struct ut_cfg_evf *)ut_cfg_find_evf(c, event), n = {0}, *v;

	if (e) { /* replaced or removed: the last entry takes its place */
		free(e->event);
		free(e->prog);
		free(e->text);
		*e = c->evf[--c->nr_evf];
	}
	if (!prog)
		return 0;
	if (c->nr_evf == UINT16_MAX)
		return -ENOMEM;
	n.event = strdup(event);
	n.prog = strdup(prog);
	n.text = strdup(text ? text : "");
	v = realloc(c->evf, (c->nr_evf + 1) * sizeof(*v));
	if (!n.event || !n.prog || !n.text || !v) {
		free(n.event);
		free(n.prog);
		free(n.text);
		if (v)
			c->evf = v;
		return -ENOMEM;
	}
	for (char *t = n.text; *t; t++)
		if (*t == '\n')
			*t = ' ';
	c->evf = v;
	c->evf[c->nr_evf++] = n;
	return 0;
}

int ut_cfg_set_words(char **list, const char *words, bool append)
{
	size_t old = append && *list ? strlen(*list) : 0, add;
	char *n;

	while (words && (*words == ' ' || *words == '\t' || *words == '\n'))
		words++;
	add = words ? strlen(words) : 0;
	while (add && (words[add - 1] == ' ' || words[add - 1] == '\t' || words[add - 1] == '\n'))
		add--;
	if (!add) {
		if (!append) {
			free(*list);
			*list = NULL;
		}
		return 0;
	}
	n = malloc(old + 1 + add + 1);
	if (!n)
		return -ENOMEM;
	if (old)
		memcpy(n, *list, old);
	if (old)
		n[old++] = ' ';
	for (size_t i = 0; i < add; i++) { /* one line: newlines become spaces */
		char ch = words[i];

		if (ch == '\n' || ch == '\t')
			ch = ' ';
		n[old + i] = ch;
	}
	n[old + add] = '\0';
	free(*list);
	*list = n;
	return 0;
}

const char *ut_cfg_word(const char *p, size_t *len)
{
	while (p && *p == ' ')
		p++;
	if (!p || !*p)
		return NULL;
	/* C++ names keep the blanks of their parameter and template lists */
	*len = ut_cxx_word_end(p, 0, strlen(p));
	return p;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A decimal number of at most @max; the whole value must be digits. */
static bool parse_u64(const char *v, uint64_t max, uint64_t *out)
{
	uint64_t n = 0;

	if (!*v)
		return false;
	for (; *v; v++) {
		if (*v < '0' || *v > '9' || n > (max - (uint64_t)(*v - '0')) / 10)
			return false;
		n = n * 10 + (uint64_t)(*v - '0');
	}
	*out = n;
	return true;
}

static bool parse_bool(const char *v, bool *out)
{
	if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0)
		return false;
	*out = *v == '1';
	return true;
}

/* A list of pids (set_ftrace_pid's, set_event_pid's) into @pids, *@nr of them. */
static int parse_pids(int32_t *pids, uint32_t *nr, char *v)
{
	char *save = NULL;

	*nr = 0;
	for (char *w = strtok_r(v, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		uint64_t n;

		if (!parse_u64(w, 0x7fffffff, &n) || !n || *nr == UT_CFG_MAX_PIDS)
			return -EINVAL;
		pids[(*nr)++] = (int32_t)n;
	}
	return 0;
}

/* "tracing_cpumask HEX": the mask as one hex number, CPU 0 the lowest bit. */
static int parse_cpumask(struct ut_cfg *c, const char *v)
{
	size_t n = strlen(v);

	if (!n || n > (size_t)UT_CFG_CPUMASK_WORDS * 16)
		return -EINVAL;
	memset(c->cpumask, 0, sizeof(c->cpumask));
	for (size_t i = 0; i < n; i++) {
		char ch = v[n - 1 - i];
		uint64_t d;

		if (ch >= '0' && ch <= '9')
			d = (uint64_t)ch - '0';
		else if (ch >= 'a' && ch <= 'f')
			d = (uint64_t)ch - 'a' + 10;
		else
			return -EINVAL;
		c->cpumask[i / 16] |= d << (i % 16 * 4);
	}
	c->cpumask_set = true;
	return 0;
}

/* One "key value" line (NUL-terminated, no newline). */
/* The yes/no setting @name of @c, or NULL. */
static bool *bool_setting(struct ut_cfg *c, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} settings[] = {
		{"overwrite", offsetof(struct ut_cfg, overwrite)},
		{"tracing_on", offsetof(struct ut_cfg, tracing_on)},
		{"func_stack_trace", offsetof(struct ut_cfg, func_stack)},
		{"function_profile_enabled", offsetof(struct ut_cfg, profile)},
		{"sleep_time", offsetof(struct ut_cfg, sleep_time)},
		{"lenient", offsetof(struct ut_cfg, lenient)},
		{"follow", offsetof(struct ut_cfg, follow)},
		{"lossless", offsetof(struct ut_cfg, lossless)},
		{"plt", offsetof(struct ut_cfg, plt)},
		{"patch_prologue", offsetof(struct ut_cfg, patch_prologue)},
		{"inlined", offsetof(struct ut_cfg, inlined)},
		{"event_fork", offsetof(struct ut_cfg, event_fork)},
	};

	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if (!strcmp(name, settings[i].name))
			return (bool *)((char *)c + settings[i].off);
	return NULL;
}

/* One line (up to a newline) appended to the line list *@list. */
static int add_line(char **list, const char *line)
{
	size_t old = *list ? strlen(*list) : 0, add = strcspn(line, "\n");
	char *n = realloc(*list, old + add + 2);

	if (!n)
		return -ENOMEM;
	memcpy(n + old, line, add);
	n[old + add] = '\n';
	n[old + add + 1] = '\0';
	*list = n;
	return 0;
}

int ut_cfg_add_trigger(struct ut_cfg *c, const char *line)
{
	return add_line(&c->triggers, line);
}

int ut_cfg_add_synth(struct ut_cfg *c, const char *line)
{
	return add_line(&c->synth, line);
}

/* "event_filter EVENT PROG TEXT": the event and the program are words, the text the rest. */
static int parse_evf(struct ut_cfg *c, char *v, char *err, size_t errlen)
{
	char *prog = strchr(v, ' '), *text;

	if (!prog || prog == v || strncmp(prog + 1, "evf1", 4) != 0)
		return fail(err, errlen, "bad event_filter '%s'", v);
	*prog++ = '\0';
	text = strchr(prog, ' ');
	if (text)
		*text++ = '\0';
	return ut_cfg_set_evf(c, v, prog, text ? text : "");
}

static int parse_line(struct ut_cfg *c, char *line, char *err, size_t errlen)
{
	char *v = strchr(line, ' ');
	uint64_t n;
	int i;

	if (v)
		*v++ = '\0';
	else
		v = line + strlen(line);
	if (!strcmp(line, "tracer")) {
		i = ut_name_index(ut_tracer_names, UT_NR_TRACERS, v);
		if (i < 0)
			return fail(err, errlen, "unknown tracer '%s'", v);
		c->tracer = (uint32_t)i;
	} else if (!strcmp(line, "clock")) {
		i = ut_name_index(ut_clock_names, UT_CLOCK_NR, v);
		if (i < 0)
			return fail(err, errlen, "unknown clock '%s'", v);
		c->clock = (uint32_t)i;
	} else if (!strcmp(line, "buffer_size_kb")) {
		if (!parse_u64(v, 1u << 20, &n) || !n)
			return fail(err, errlen, "bad buffer_size_kb '%s'", v);
		c->buf_kb = (uint32_t)n;
	} else if (!strcmp(line, "buffer_total_size_kb")) {
		if (!parse_u64(v, 0xffffffffu, &n))
			return fail(err, errlen, "bad buffer_total_size_kb '%s'", v);
		c->total_kb = (uint32_t)n;
	} else if (!strcmp(line, "max_graph_depth")) {
		if (!parse_u64(v, 0xffffffffu, &n))
			return fail(err, errlen, "bad max_graph_depth '%s'", v);
		c->max_graph_depth = (uint32_t)n;
	} else if (!strcmp(line, "tracing_thresh")) {
		if (!parse_u64(v, 1ull << 40, &n))
			return fail(err, errlen, "bad tracing_thresh '%s'", v);
		c->thresh_us = n;
	} else if (!strcmp(line, "lossless_pid")) {
		if (!parse_u64(v, 0x7fffffff, &n))
			return fail(err, errlen, "bad lossless_pid '%s'", v);
		c->lossless_pid = (int32_t)n;
	} else if (bool_setting(c, line)) {
		if (!parse_bool(v, bool_setting(c, line)))
			return fail(err, errlen, "bad %s '%s'", line, v);
	} else if (!strcmp(line, "filter") || !strcmp(line, "notrace") ||
		   !strcmp(line, "graph_function") || !strcmp(line, "graph_notrace") ||
		   !strcmp(line, "events")) {
		char **list = !strcmp(line, "filter")	       ? &c->filter
			      : !strcmp(line, "notrace")       ? &c->notrace
			      : !strcmp(line, "graph_function") ? &c->graph_function
			      : !strcmp(line, "events")	       ? &c->events
							       : &c->graph_notrace;

		if (ut_cfg_set_words(list, v, false))
			return -ENOMEM;
	} else if (!strcmp(line, "trigger")) {
		if (ut_cfg_add_trigger(c, v))
			return -ENOMEM;
	} else if (!strcmp(line, "synth")) {
		if (ut_cfg_add_synth(c, v))
			return -ENOMEM;
	} else if (!strcmp(line, "event_filter")) {
		return parse_evf(c, v, err, errlen);
	} else if (!strcmp(line, "ftrace_pid")) {
		if (parse_pids(c->pids, &c->nr_pids, v))
			return fail(err, errlen, "bad ftrace_pid '%s'", v);
	} else if (!strcmp(line, "event_pid")) {
		if (parse_pids(c->event_pids, &c->nr_event_pids, v))
			return fail(err, errlen, "bad event_pid '%s'", v);
	} else if (!strcmp(line, "event_notrace_pid")) {
		if (parse_pids(c->event_notrace_pids, &c->nr_event_notrace_pids, v))
			return fail(err, errlen, "bad event_notrace_pid '%s'", v);
	} else if (!strcmp(line, "tracing_cpumask")) {
		if (parse_cpumask(c, v))
			return fail(err, errlen, "bad tracing_cpumask '%s'", v);
	} else {
		return fail(err, errlen, "unknown setting '%s'", line);
	}
	return 0;
}

int ut_cfg_parse(struct ut_cfg *c, const char *text, size_t len, char *err, size_t errlen)
{
	char *copy;
	size_t pos = 0;
	int ret = 0;

	ut_cfg_init(c);
	if (err && errlen)
		err[0] = '\0';
	if (len > UT_CFG_MAX_TEXT)
		return fail(err, errlen, "configuration larger than %u bytes", UT_CFG_MAX_TEXT);
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (strlen(copy) != len) {
		free(copy);
		return fail(err, errlen, "NUL byte in the configuration");
	}
	while (pos < len && !ret) {
		char *line = copy + pos, *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		pos += strlen(line) + 1;
		if (*line && *line != '#')
			ret = parse_line(c, line, err, errlen);
	}
	free(copy);
	if (ret)
		ut_cfg_free(c);
	return ret;
}

struct strbuf {
	char *s;
	size_t len, cap;
	bool failed;
};

static void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || b->len + (size_t)n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap : 256);
		char *s;

		while (n >= 0 && b->len + (size_t)n + 1 > cap)
			cap *= 2;
		s = n < 0 ? NULL : realloc(b->s, cap);
		if (!s) {
			b->failed = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void format_cpumask(struct strbuf *b, const struct ut_cfg *c)
{
	int top = UT_CFG_CPUMASK_WORDS - 1;

	while (top > 0 && !c->cpumask[top])
		top--;
	sb_printf(b, "tracing_cpumask %llx", (unsigned long long)c->cpumask[top]);
	while (top-- > 0)
		sb_printf(b, "%016llx", (unsigned long long)c->cpumask[top]);
	sb_printf(b, "\n");
}

char *ut_cfg_format(const struct ut_cfg *c)
{
	struct strbuf b = {0};

	sb_printf(&b, "tracer %s\n", c->tracer < (uint32_t)UT_NR_TRACERS ? ut_tracer_names[c->tracer]
								      : "nop");
	sb_printf(&b, "clock %s\n", c->clock < UT_CLOCK_NR ? ut_clock_names[c->clock] : "local");
	sb_printf(&b, "buffer_size_kb %u\n", c->buf_kb);
	if (c->total_kb)
		sb_printf(&b, "buffer_total_size_kb %u\n", c->total_kb);
	sb_printf(&b, "overwrite %d\ntracing_on %d\nfunc_stack_trace %d\n", c->overwrite,
		  c->tracing_on, c->func_stack);
	sb_printf(&b, "function_profile_enabled %d\nsleep_time %d\n", c->profile, c->sleep_time);
	if (c->lenient)
		sb_printf(&b, "lenient 1\n");
	if (c->follow)
		sb_printf(&b, "follow 1\n");
	if (c->lossless)
		sb_printf(&b, "lossless 1\n");
	if (c->lossless && c->lossless_pid > 0)
		sb_printf(&b, "lossless_pid %d\n", (int)c->lossless_pid);
	if (c->plt)
		sb_printf(&b, "plt 1\n");
	if (c->patch_prologue)
		sb_printf(&b, "patch_prologue 1\n");
	if (c->inlined)
		sb_printf(&b, "inlined 1\n");
	if (c->event_fork)
		sb_printf(&b, "event_fork 1\n");
	sb_printf(&b, "max_graph_depth %u\ntracing_thresh %llu\n", c->max_graph_depth,
		  (unsigned long long)c->thresh_us);
	if (c->filter)
		sb_printf(&b, "filter %s\n", c->filter);
	if (c->notrace)
		sb_printf(&b, "notrace %s\n", c->notrace);
	if (c->graph_function)
		sb_printf(&b, "graph_function %s\n", c->graph_function);
	if (c->graph_notrace)
		sb_printf(&b, "graph_notrace %s\n", c->graph_notrace);
	if (c->events)
		sb_printf(&b, "events %s\n", c->events);
	for (const char *t = c->triggers; t && *t; t += strcspn(t, "\n") + 1)
		sb_printf(&b, "trigger %.*s\n", (int)strcspn(t, "\n"), t);
	for (const char *t = c->synth; t && *t; t += strcspn(t, "\n") + 1)
		sb_printf(&b, "synth %.*s\n", (int)strcspn(t, "\n"), t);
	for (uint32_t i = 0; i < c->nr_evf; i++)
		sb_printf(&b, "event_filter %s %s %s\n", c->evf[i].event, c->evf[i].prog,
			  c->evf[i].text);
	if (c->nr_pids) {
		sb_printf(&b, "ftrace_pid");
		for (uint32_t i = 0; i < c->nr_pids && i < UT_CFG_MAX_PIDS; i++)
			sb_printf(&b, " %d", c->pids[i]);
		sb_printf(&b, "\n");
	}
	if (c->nr_event_pids) {
		sb_printf(&b, "event_pid");
		for (uint32_t i = 0; i < c->nr_event_pids && i < UT_CFG_MAX_PIDS; i++)
			sb_printf(&b, " %d", c->event_pids[i]);
		sb_printf(&b, "\n");
	}
	if (c->nr_event_notrace_pids) {
		sb_printf(&b, "event_notrace_pid");
		for (uint32_t i = 0; i < c->nr_event_notrace_pids && i < UT_CFG_MAX_PIDS; i++)
			sb_printf(&b, " %d", c->event_notrace_pids[i]);
		sb_printf(&b, "\n");
	}
	if (c->cpumask_set)
		format_cpumask(&b, c);
	if (b.failed) {
		free(b.s);
		return NULL;
	}
	return b.s;
}
