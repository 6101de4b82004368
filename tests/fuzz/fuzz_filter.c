// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: the set_ftrace_filter-style parsers (common/filter.c)
 * and the glob matcher under them (common/glob.c).
 *
 * A fixed table of a few dozen functions (the executable, a few modules,
 * some names with glob characters in them) gets the four lists: filter,
 * notrace, graph and graph-notrace.  The input is a script, one operation a
 * line; the first byte of a line says what to do with the rest:
 *
 *   >X words   open list X with truncate (">"), then write the words
 *   +X words   open list X for append (">>"), then write the words
 *   =X words   one-shot ut_fset_set() on list X with truncate; -X: append
 *   ^words     close (commit) the current list, then write the words to
 *              it anyway (a write after close(2)); &words: abort instead
 *   @MOD       load module MOD (a few functions), apply pending :mod: entries
 *   ~MOD       unload module MOD ("~" alone: the NULL module)
 *   %          read everything back and check it
 *   $          the runtime uses up one count of every counted command
 *   #PAT<TAB>NAME   glob PAT against NAME (against every table name
 *                   without a tab), compiled and raw, which must agree
 *   otherwise  the whole line is written to the current list (opening the
 *              filter with truncate if nothing is open)
 *
 * X is f (filter), n (notrace), g (graph) or G (graph-notrace); any other
 * byte picks one by its value.  Within a line, '|' splits the words into
 * separate write() calls, each passed as an exact-size, unterminated heap
 * block.  Plain text such as "parse_* !parse_noise" is a valid script.
 * At the end every open list is committed, everything is read back and
 * checked for consistency, and all is freed (leaks are errors too).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/filter.h"
#include "common/glob.h"

#define REQUIRE(cond)                                                                              \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define NSETS 4
#define MAX_LOADS 16 /* module loads per input: keeps the table small */
#define MAX_MODNAME 40

/* clang-format off */
static const struct ut_filter_func base_funcs[] = {
	{"main", NULL}, {"parse_args", NULL}, {"parse_noise", NULL}, {"parse_line", NULL},
	{"do_work", NULL}, {"work_loop", NULL}, {"foo", NULL}, {"bar", NULL},
	{"foo_bar", NULL}, {"bar_foo", NULL}, {"_start", NULL}, {"__libc_csu_init", NULL},
	{"helper", NULL}, {"x", NULL}, {"Foo", NULL}, {"ns::fn", NULL},
	/* names with glob characters in them */
	{"a[1]", NULL}, {"star*name", NULL}, {"q?", NULL}, {"back\\slash", NULL},
	{"foo", "libfoo"}, {"foo_init", "libfoo"}, {"foo_parse", "libfoo"},
	{"parse_foo", "libfoo"},
	{"bar", "libbar"}, {"bar_init", "libbar"}, {"helper", "libbar"},
	{"inflate", "libz"}, {"deflate", "libz"}, {"crc32", "libz"}, {"adler32", "libz"},
	{"malloc", "libc.so"}, {"free", "libc.so"}, {"printf", "libc.so"},
	{"plug_run", "libplug"},
};
/* clang-format on */

/* What a module loaded by the script brings. */
static const char *const plug_names[] = {"plug_init", "plug_run", "parse_plug", "foo"};

static const unsigned set_flags[NSETS] = {UT_FSET_FILTER, UT_FSET_NOTRACE, UT_FSET_GRAPH,
					  UT_FSET_GRAPH_NOTRACE};

struct state {
	struct ut_ftable *t;
	struct ut_fset *s[NSETS];
	bool open[NSETS];
	unsigned cur;
	unsigned loads;
	unsigned badlen_pick;
};

static volatile size_t sink; /* keeps the reads from being optimised away */

static unsigned pick_set(unsigned char c)
{
	switch (c) {
	case 'f':
		return 0;
	case 'n':
		return 1;
	case 'g':
		return 2;
	case 'G':
		return 3;
	default:
		return c % NSETS;
	}
}

static void check_result(int r)
{
	REQUIRE(r == 0 || r == -EINVAL || r == -EBADF || r == -EBUSY || r == -ENOMEM);
}

/* One write(2) of @len bytes, from an exact-size block that has no NUL after it. */
static void write_buf(struct state *st, const char *buf, size_t len)
{
	static const size_t badlens[] = {0, 1, 2, 8, 64};
	size_t badlen = badlens[st->badlen_pick++ % 5];
	char bad[64], *copy;
	int r;

	copy = malloc(len ? len : 1);
	if (!copy)
		return;
	memcpy(copy, buf, len);
	memset(bad, 'Z', sizeof(bad));
	r = ut_fset_write(st->s[st->cur], copy, len, badlen ? bad : NULL, badlen);
	check_result(r);
	REQUIRE(r != -EBADF || !st->open[st->cur]);
	if (badlen) {
		REQUIRE(memchr(bad, '\0', badlen));
		if (r == 0)
			REQUIRE(bad[0] == '\0');
		else if (r == -EINVAL && badlen > 1)
			REQUIRE(bad[0] != '\0'); /* the word that failed */
	}
	free(copy);
}

/* The words of a line: '|' separates write() calls. */
static void write_words(struct state *st, const char *p, size_t len)
{
	const char *bar;

	for (;;) {
		bar = memchr(p, '|', len);
		if (!bar) {
			write_buf(st, p, len);
			return;
		}
		write_buf(st, p, (size_t)(bar - p));
		len -= (size_t)(bar - p) + 1;
		p = bar + 1;
	}
}

static void open_set(struct state *st, unsigned i, bool truncate)
{
	int r = ut_fset_begin(st->s[i], truncate);

	check_result(r);
	REQUIRE((r == -EBUSY) == st->open[i]);
	if (!r)
		st->open[i] = true;
	st->cur = i;
}

static void commit_set(struct state *st, unsigned i)
{
	int r = ut_fset_commit(st->s[i]);

	REQUIRE(r == (st->open[i] ? 0 : -EBADF));
	st->open[i] = false;
}

static void check_text(const char *s, size_t len)
{
	REQUIRE(s);
	REQUIRE(strlen(s) == len);
	REQUIRE(!len || s[len - 1] == '\n');
}

static void check_set(struct state *st, unsigned k)
{
	static const char *const empty[] = {UT_FSET_EMPTY_FILTER, UT_FSET_EMPTY_NOTRACE, NULL};
	struct ut_fset *s = st->s[k];
	size_t i, n = 0, ncmds, size = ut_ftable_size(st->t), len;
	struct ut_fcmd *cmds;
	char *out;

	for (i = 0; i < size + 2; i++) {
		bool in = ut_fset_contains(s, i);

		REQUIRE(!in || ut_ftable_get(st->t, i));
		n += in;
	}
	REQUIRE(n == ut_fset_count(s));
	REQUIRE(ut_fset_active(s) ==
		(n || ((set_flags[k] & UT_FSET_F_MODACTIVE) && ut_fset_nr_pending(s))));
	if (!(set_flags[k] & UT_FSET_F_MODCACHE))
		REQUIRE(ut_fset_nr_pending(s) == 0);
	cmds = ut_fset_cmds(s, &ncmds);
	if (!(set_flags[k] & UT_FSET_F_CMDS))
		REQUIRE(ncmds == 0);
	for (i = 0; i < ncmds; i++) {
		REQUIRE(ut_ftable_get(st->t, cmds[i].func));
		REQUIRE(strcmp(ut_fcmd_name(cmds[i].type), "?") != 0);
		REQUIRE(cmds[i].count >= -1);
		REQUIRE(cmds[i].counted || cmds[i].count == -1);
	}
	if (ut_fset_format(s, empty[k % 3], &out, &len) == 0) {
		check_text(out, len);
		sink += len;
		free(out);
	}
}

static void read_back(struct state *st)
{
	size_t i, len, size = ut_ftable_size(st->t);
	char *out;
	unsigned k;

	for (k = 0; k < NSETS; k++)
		check_set(st, k);
	if (ut_ftable_format_available(st->t, &out, &len) == 0) {
		check_text(out, len);
		sink += len;
		free(out);
	}
	for (i = 0; i < size + 2; i++) {
		bool f = ut_fset_traced(st->s[0], st->s[1], i);
		bool g = ut_fset_traced(st->s[2], st->s[3], i);

		REQUIRE(!f || ut_ftable_get(st->t, i));
		REQUIRE(!g || ut_ftable_get(st->t, i));
		/* notrace beats filter */
		REQUIRE(!f || !ut_fset_contains(st->s[1], i));
		sink += f + g + ut_fset_traced(NULL, NULL, i);
	}
}

/* What the runtime does when a counted command fires. */
static void use_counts(struct state *st)
{
	size_t i, n;
	struct ut_fcmd *c = ut_fset_cmds(st->s[0], &n);

	for (i = 0; i < n; i++)
		if (c[i].count > 0)
			c[i].count--;
}

static void load_module(struct state *st, const char *name, size_t len)
{
	struct ut_filter_func funcs[sizeof(plug_names) / sizeof(plug_names[0])];
	char mod[MAX_MODNAME + 1];
	size_t i;
	long first;
	int r;

	if (st->loads++ >= MAX_LOADS)
		return;
	if (len > MAX_MODNAME)
		len = MAX_MODNAME;
	memcpy(mod, name, len);
	mod[len] = '\0';
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		funcs[i] = (struct ut_filter_func){.name = plug_names[i], .module = mod};
	first = ut_ftable_add_funcs(st->t, funcs, sizeof(funcs) / sizeof(funcs[0]));
	if (first < 0)
		return;
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		const struct ut_filter_func *f = ut_ftable_get(st->t, (size_t)first + i);

		REQUIRE(f && strcmp(f->name, plug_names[i]) == 0 && strcmp(f->module, mod) == 0);
	}
	r = ut_ftable_module_loaded(st->t, mod);
	REQUIRE(r == 0 || r == -ENOMEM);
}

static void unload_module(struct state *st, const char *name, size_t len)
{
	char mod[MAX_MODNAME + 1];
	long r;

	if (len > MAX_MODNAME)
		len = MAX_MODNAME;
	memcpy(mod, name, len);
	mod[len] = '\0';
	r = ut_ftable_remove_module(st->t, len ? mod : NULL);
	REQUIRE(len ? r >= 0 : r == -EINVAL);
}

/* The compiled (classified) match and the raw glob must agree. */
static void glob_one(const char *pat, size_t plen, const char *name)
{
	struct ut_glob g;
	char *raw;
	bool a, b, nul;

	if (ut_glob_compile_n(&g, pat, plen))
		return;
	REQUIRE(g.type == ut_glob_classify(pat, plen));
	a = ut_glob_match(&g, name);
	nul = memchr(pat, '\0', plen) != NULL;
	REQUIRE(nul || g.len == strlen(g.text));
	ut_glob_free(&g);
	if (nul)
		return; /* a NUL ends the raw pattern early: no comparison */
	raw = malloc(plen + 1);
	if (!raw)
		return;
	memcpy(raw, pat, plen);
	raw[plen] = '\0';
	b = ut_glob_fnmatch(raw, name);
	free(raw);
	if (a != b)
		fprintf(stderr, "glob \"%.*s\" on \"%s\": compiled %d, raw %d\n", (int)plen, pat,
			name, a, b);
	REQUIRE(a == b);
}

static void glob_line(const struct state *st, const char *p, size_t len)
{
	const char *tab = memchr(p, '\t', len);
	const struct ut_filter_func *f;
	char *name;
	size_t i;

	if (tab) {
		size_t nlen = len - (size_t)(tab - p) - 1;

		name = malloc(nlen + 1);
		if (!name)
			return;
		memcpy(name, tab + 1, nlen);
		name[nlen] = '\0';
		glob_one(p, (size_t)(tab - p), name);
		free(name);
		return;
	}
	for (i = 0; i < ut_ftable_size(st->t); i++) {
		f = ut_ftable_get(st->t, i);
		if (f)
			glob_one(p, len, f->name);
	}
}

static void do_line(struct state *st, const char *p, size_t len)
{
	unsigned k;

	if (!len)
		return;
	switch (p[0]) {
	case '>':
	case '+':
	case '=':
	case '-':
		if (len < 2)
			return;
		k = pick_set((unsigned char)p[1]);
		if (p[0] == '=' || p[0] == '-') {
			char *buf = malloc(len - 1), bad[16];
			int r;

			if (!buf)
				return;
			/* ut_fset_set() wants a string: the words stop at a NUL */
			memcpy(buf, p + 2, len - 2);
			buf[len - 2] = '\0';
			r = ut_fset_set(st->s[k], buf, p[0] == '=', bad, sizeof(bad));
			check_result(r);
			REQUIRE((r == -EBUSY) == st->open[k]);
			free(buf);
			return;
		}
		open_set(st, k, p[0] == '>');
		if (len > 2)
			write_words(st, p + 2, len - 2);
		return;
	case '^':
	case '&':
		if (p[0] == '^') {
			commit_set(st, st->cur);
		} else {
			ut_fset_abort(st->s[st->cur]);
			st->open[st->cur] = false;
		}
		if (len > 1)
			write_words(st, p + 1, len - 1);
		return;
	case '@':
		load_module(st, p + 1, len - 1);
		return;
	case '~':
		unload_module(st, p + 1, len - 1);
		return;
	case '%':
		read_back(st);
		return;
	case '$':
		use_counts(st);
		return;
	case '#':
		glob_line(st, p + 1, len - 1);
		return;
	default:
		if (!st->open[st->cur])
			open_set(st, 0, true);
		write_words(st, p, len);
		return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	const char *p = (const char *)in, *end = p + n, *nl;
	struct state st = {0};
	unsigned k;

	st.t = ut_ftable_new();
	if (!st.t)
		return 0;
	if (ut_ftable_add_funcs(st.t, base_funcs, sizeof(base_funcs) / sizeof(base_funcs[0])) < 0)
		goto out;
	for (k = 0; k < NSETS; k++) {
		st.s[k] = ut_fset_new(st.t, set_flags[k]);
		if (!st.s[k])
			goto out;
	}
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		do_line(&st, p, (size_t)(nl - p));
		p = nl + 1;
	}
	for (k = 0; k < NSETS; k++)
		if (st.open[k])
			commit_set(&st, k);
	read_back(&st);
out:
	for (k = 0; k < NSETS; k++)
		ut_fset_free(st.s[k]);
	ut_ftable_free(st.t);
	return 0;
}
