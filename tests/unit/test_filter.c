// SPDX-License-Identifier: MIT
/* set_ftrace_filter / set_ftrace_notrace semantics (common/filter.c). */
#include <errno.h>
#include <stdbool.h>

#include "common/filter.h"
#include "ut_test.h"

/* available_filter_functions: index i is line i + 1 */
static const struct ut_filter_func base[] = {
	{ "main_loop", NULL },  /* 1 */
	{ "parse_args", NULL }, /* 2 */
	{ "parse_file", NULL }, /* 3 */
	{ "do_work", NULL },    /* 4 */
	{ "helper_a", NULL },   /* 5 */
	{ "helper_b", NULL },   /* 6 */
	{ "compress", "libz" }, /* 7 */
	{ "deflate", "libz" },  /* 8 */
	{ "inflate", "libz" },  /* 9 */
	{ "do_work", "libm" },  /* 10 */
};

enum { MAIN_LOOP, PARSE_ARGS, PARSE_FILE, DO_WORK, HELPER_A, HELPER_B, COMPRESS, DEFLATE,
       INFLATE, M_DO_WORK, NR_BASE };

static struct ut_ftable *table(void)
{
	struct ut_ftable *t = ut_ftable_new();

	CHECK(t);
	CHECK_EQ_INT(ut_ftable_add_funcs(t, base, NR_BASE), 0);
	CHECK_EQ_INT(ut_ftable_size(t), NR_BASE);
	return t;
}

static char *list(const struct ut_fset *s, const char *empty)
{
	static char *last;
	size_t len;

	free(last);
	CHECK(ut_fset_format(s, empty, &last, &len) == 0);
	CHECK_EQ_INT(len, strlen(last));
	return last;
}

/* One write: returns the write's result; *bad gets the failing word. */
static int wr(struct ut_fset *s, const char *text, bool truncate, char *bad)
{
	return ut_fset_set(s, text, truncate, bad, 64);
}

#define SET(s, text) CHECK_EQ_INT(wr(s, text, true, bad), 0)
#define ADD(s, text) CHECK_EQ_INT(wr(s, text, false, bad), 0)

TEST(table_basics)
{
	struct ut_ftable *t = table();
	char *out;

	CHECK_EQ_STR(ut_ftable_get(t, COMPRESS)->name, "compress");
	CHECK_EQ_STR(ut_ftable_get(t, COMPRESS)->module, "libz");
	CHECK(ut_ftable_get(t, MAIN_LOOP)->module == NULL);
	CHECK(ut_ftable_get(t, NR_BASE) == NULL);
	/* module names are interned */
	CHECK(ut_ftable_get(t, COMPRESS)->module == ut_ftable_get(t, INFLATE)->module);
	CHECK(ut_ftable_format_available(t, &out, NULL) == 0);
	CHECK_EQ_STR(out, "main_loop\nparse_args\nparse_file\ndo_work\nhelper_a\nhelper_b\n"
			  "compress [libz]\ndeflate [libz]\ninflate [libz]\ndo_work [libm]\n");
	free(out);
	CHECK_EQ_INT(ut_ftable_add(t, "late", "libq"), NR_BASE);
	ut_ftable_free(t);
}

TEST(pattern_classes)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64];

	SET(f, "do_work");
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER), "do_work\ndo_work [libm]\n");
	SET(f, "parse*");
	CHECK_EQ_STR(list(f, NULL), "parse_args\nparse_file\n");
	SET(f, "*flate");
	CHECK_EQ_STR(list(f, NULL), "deflate [libz]\ninflate [libz]\n");
	SET(f, "*elper*");
	CHECK_EQ_STR(list(f, NULL), "helper_a\nhelper_b\n");
	SET(f, "helper_[!a]");
	CHECK_EQ_STR(list(f, NULL), "helper_b\n");
	SET(f, "?nflate");
	CHECK_EQ_STR(list(f, NULL), "inflate [libz]\n");
	SET(f, "p*_f*");
	CHECK_EQ_STR(list(f, NULL), "parse_file\n");
	SET(f, "parse\\_args");
	CHECK_EQ_STR(list(f, NULL), "parse_args\n");
	SET(f, "*");
	CHECK_EQ_INT(ut_fset_count(f), NR_BASE);
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(whitespace_and_words)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64];

	SET(f, "  main_loop\thelper_a \n inflate\n");
	CHECK_EQ_STR(list(f, NULL), "main_loop\nhelper_a\ninflate [libz]\n");
	/* an empty write is fine and, with '>', clears */
	SET(f, "   \n");
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER), UT_FSET_EMPTY_FILTER);
	/* the buffer need not be NUL-terminated */
	CHECK_EQ_INT(ut_fset_begin(f, true), 0);
	CHECK_EQ_INT(ut_fset_write(f, "helper_a helper_b", 8, bad, sizeof(bad)), 0);
	CHECK_EQ_INT(ut_fset_commit(f), 0);
	CHECK_EQ_STR(list(f, NULL), "helper_a\n");
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(truncate_vs_append_and_negation)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64];

	SET(f, "parse*");
	ADD(f, "helper_a");
	CHECK_EQ_STR(list(f, NULL), "parse_args\nparse_file\nhelper_a\n");
	ADD(f, "!parse_args");
	CHECK_EQ_STR(list(f, NULL), "parse_file\nhelper_a\n");
	/* removing something that exists but is not listed is fine */
	ADD(f, "!compress");
	CHECK_EQ_STR(list(f, NULL), "parse_file\nhelper_a\n");
	/* within one write, later words see earlier ones */
	ADD(f, "*flate !inflate");
	CHECK_EQ_STR(list(f, NULL), "parse_file\nhelper_a\ndeflate [libz]\n");
	SET(f, "main_loop");
	CHECK_EQ_STR(list(f, NULL), "main_loop\n");
	/* '>' with only a negation leaves nothing */
	SET(f, "!main_loop");
	CHECK(!ut_fset_active(f));
	SET(f, "helper* !helper_b");
	CHECK_EQ_STR(list(f, NULL), "helper_a\n");
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(no_match_is_einval_with_word)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64], small[6];

	CHECK_EQ_INT(wr(f, "main_loop parse_nothing helper_a", true, bad), -EINVAL);
	CHECK_EQ_STR(bad, "parse_nothing");
	/* the words before the failure were applied, the ones after were not */
	CHECK_EQ_STR(list(f, NULL), "main_loop\n");
	CHECK_EQ_INT(wr(f, "!nothing_here", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "!nothing_here");
	CHECK_EQ_INT(wr(f, "zz*", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "zz*");
	CHECK_EQ_INT(wr(f, "!", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "!");
	/* success clears the word; a small buffer truncates it */
	ADD(f, "helper_a");
	CHECK_EQ_STR(bad, "");
	CHECK_EQ_INT(ut_fset_set(f, "a_very_long_word", false, small, sizeof(small)), -EINVAL);
	CHECK_EQ_STR(small, "a_ver");
	CHECK_EQ_INT(ut_fset_set(f, "x", false, NULL, 0), -EINVAL);
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(commit_semantics)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64];

	SET(f, "main_loop helper_a");
	/* nothing shows before close(2) */
	CHECK_EQ_INT(ut_fset_begin(f, true), 0);
	CHECK_EQ_INT(ut_fset_begin(f, true), -EBUSY);
	CHECK_EQ_INT(ut_fset_write(f, "inflate", 7, bad, sizeof(bad)), 0);
	CHECK_EQ_STR(list(f, NULL), "main_loop\nhelper_a\n");
	CHECK(ut_fset_traced(f, NULL, MAIN_LOOP));
	CHECK(!ut_fset_traced(f, NULL, INFLATE));
	CHECK_EQ_INT(ut_fset_commit(f), 0);
	CHECK_EQ_STR(list(f, NULL), "inflate [libz]\n");
	CHECK_EQ_INT(ut_fset_commit(f), -EBADF);
	CHECK_EQ_INT(ut_fset_write(f, "x", 1, bad, sizeof(bad)), -EBADF);

	/* a '>' whose write fails still empties the filter: trace everything */
	CHECK_EQ_INT(ut_fset_begin(f, true), 0);
	CHECK_EQ_INT(ut_fset_write(f, "bogus", 5, bad, sizeof(bad)), -EINVAL);
	CHECK_EQ_STR(bad, "bogus");
	CHECK_EQ_INT(ut_fset_commit(f), 0);
	CHECK(!ut_fset_active(f));
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER), UT_FSET_EMPTY_FILTER);
	CHECK(ut_fset_traced(f, NULL, INFLATE));

	/* a failed '>>' keeps the old list plus the words that worked */
	SET(f, "main_loop");
	CHECK_EQ_INT(wr(f, "helper_b bogus", false, bad), -EINVAL);
	CHECK_EQ_STR(list(f, NULL), "main_loop\nhelper_b\n");

	/* several writes between open and close accumulate */
	CHECK_EQ_INT(ut_fset_begin(f, true), 0);
	CHECK_EQ_INT(ut_fset_write(f, "compress\n", 9, bad, sizeof(bad)), 0);
	CHECK_EQ_INT(ut_fset_write(f, "deflate\n", 8, bad, sizeof(bad)), 0);
	CHECK_EQ_INT(ut_fset_commit(f), 0);
	CHECK_EQ_STR(list(f, NULL), "compress [libz]\ndeflate [libz]\n");

	/* abort drops the working copy */
	CHECK_EQ_INT(ut_fset_begin(f, true), 0);
	ut_fset_abort(f);
	CHECK_EQ_STR(list(f, NULL), "compress [libz]\ndeflate [libz]\n");
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(numeric_index)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64];

	SET(f, "3");
	CHECK_EQ_STR(list(f, NULL), "parse_file\n");
	ADD(f, "1 10");
	CHECK_EQ_STR(list(f, NULL), "main_loop\nparse_file\ndo_work [libm]\n");
	ADD(f, "!1");
	CHECK_EQ_STR(list(f, NULL), "parse_file\ndo_work [libm]\n");
	CHECK_EQ_INT(wr(f, "11", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "11");
	CHECK_EQ_INT(wr(f, "0", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "2x", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "99999999999999999999999", false, bad), -EINVAL);
	/* a line number ignores a module part, as in the kernel */
	ADD(f, "5:mod:libz");
	CHECK(ut_fset_contains(f, HELPER_A));
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(modules)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64];

	SET(f, ":mod:libz");
	CHECK_EQ_STR(list(f, NULL), "compress [libz]\ndeflate [libz]\ninflate [libz]\n");
	SET(f, "*:mod:libz");
	CHECK_EQ_INT(ut_fset_count(f), 3);
	SET(f, "*flate:mod:libz");
	CHECK_EQ_STR(list(f, NULL), "deflate [libz]\ninflate [libz]\n");
	/* the module part restricts: do_work of libm only */
	SET(f, "do_work:mod:libm");
	CHECK_EQ_STR(list(f, NULL), "do_work [libm]\n");
	/* "!MOD": everything but that module (main executable included) */
	SET(f, "do_work:mod:!libm");
	CHECK_EQ_STR(list(f, NULL), "do_work\n");
	/* module globs; blank module = any module, "!" alone = none */
	SET(f, "*:mod:lib?");
	CHECK_EQ_INT(ut_fset_count(f), 4);
	SET(f, "*:mod:");
	CHECK_EQ_INT(ut_fset_count(f), 4);
	SET(f, "*:mod:!");
	CHECK_EQ_INT(ut_fset_count(f), 6);
	CHECK(!ut_fset_contains(f, COMPRESS));
	/* removal by module */
	SET(f, "*");
	ADD(f, "!:mod:libz");
	CHECK_EQ_INT(ut_fset_count(f), 7);
	ADD(f, "!*:mod:!libm");
	CHECK_EQ_STR(list(f, NULL), "do_work [libm]\n");
	/* a loaded module where nothing matches: EINVAL, not cached */
	CHECK_EQ_INT(wr(f, "nothing:mod:libz", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "nothing:mod:libz");
	CHECK_EQ_INT(ut_fset_nr_pending(f), 0);
	/* malformed */
	CHECK_EQ_INT(wr(f, "do_work:mod", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "do_work:mod:a:b", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "inflate:mod:!libz", false, bad), -EINVAL);
	ut_fset_free(f);
	ut_ftable_free(t);
}

/* The module as the kernel names one, or as the shared object's file is named. */
TEST(module_file_names)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char bad[64];

	SET(f, ":mod:libz.so");
	CHECK_EQ_STR(list(f, NULL), "compress [libz]\ndeflate [libz]\ninflate [libz]\n");
	CHECK_EQ_INT(ut_fset_nr_pending(f), 0);
	SET(f, "*flate:mod:libz.so.1.2.13");
	CHECK_EQ_STR(list(f, NULL), "deflate [libz]\ninflate [libz]\n");
	SET(f, "do_work:mod:/usr/lib/libm.so.6");
	CHECK_EQ_STR(list(f, NULL), "do_work [libm]\n");
	SET(f, "do_work:mod:!libm.so");
	CHECK_EQ_STR(list(f, NULL), "do_work\n");
	SET(f, "*:mod:lib?.so");
	CHECK_EQ_INT(ut_fset_count(f), 4);
	ADD(f, "!:mod:libz.so");
	CHECK_EQ_STR(list(f, NULL), "do_work [libm]\n");
	/* an absent module is cached under its module name */
	SET(f, ":mod:libfoo.so");
	CHECK_EQ_STR(list(f, NULL), "*:mod:libfoo\n");
	/* a module part that leaves no name names nothing */
	CHECK_EQ_INT(wr(f, ":mod:.so", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, ":mod:.so");
	CHECK_EQ_INT(wr(f, "f*:mod:/x/.so.1", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, ":mod:!.so", false, bad), -EINVAL);
	CHECK_EQ_STR(list(f, NULL), "*:mod:libfoo\n");
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(pending_modules)
{
	static const struct ut_filter_func foo[] = {
		{ "foo_init", "libfoo" },
		{ "foo_run", "libfoo" },
		{ "foo_exit", "libfoo" },
	};
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	struct ut_fset *n = ut_fset_new(t, UT_FSET_NOTRACE);
	char bad[64];
	long first;

	SET(f, "*:mod:libfoo foo_r*:mod:libfoo :mod:libbar");
	CHECK_EQ_INT(ut_fset_nr_pending(f), 3);
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER),
		     "*:mod:libfoo\nfoo_r*:mod:libfoo\n*:mod:libbar\n");
	/* writing the same entry again does not duplicate it */
	ADD(f, "*:mod:libfoo");
	CHECK_EQ_INT(ut_fset_nr_pending(f), 3);
	/* a cached module filter is an active filter: nothing traced yet */
	CHECK(ut_fset_active(f));
	CHECK(!ut_fset_traced(f, NULL, MAIN_LOOP));

	/* negation deletes cached entries; "!*" / "!" all of the module */
	ADD(f, "!:mod:libbar");
	CHECK_EQ_INT(ut_fset_nr_pending(f), 2);
	CHECK_EQ_INT(wr(f, "!nothing:mod:libfoo", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "!nothing:mod:libfoo");
	ADD(f, "!foo_r*:mod:libfoo");
	CHECK_EQ_STR(list(f, NULL), "*:mod:libfoo\n");

	/* in notrace, a cached entry excludes nothing yet */
	SET(n, "foo_exit:mod:libfoo");
	CHECK_EQ_STR(list(n, UT_FSET_EMPTY_NOTRACE),
		     UT_FSET_EMPTY_NOTRACE "foo_exit:mod:libfoo\n");
	CHECK(!ut_fset_active(n));

	/* dlopen: the module's functions arrive, the entries are applied */
	first = ut_ftable_add_funcs(t, foo, 3);
	CHECK_EQ_INT(first, NR_BASE);
	CHECK_EQ_INT(ut_ftable_module_loaded(t, "libfoo"), 0);
	CHECK_EQ_INT(ut_fset_nr_pending(f), 0);
	CHECK_EQ_INT(ut_fset_nr_pending(n), 0);
	CHECK_EQ_STR(list(f, NULL), "foo_init [libfoo]\nfoo_run [libfoo]\nfoo_exit [libfoo]\n");
	CHECK_EQ_STR(list(n, NULL), "foo_exit [libfoo]\n");
	CHECK(ut_fset_traced(f, n, first + 0));
	CHECK(!ut_fset_traced(f, n, first + 2));
	CHECK(!ut_fset_traced(f, n, MAIN_LOOP));

	/* new functions can be named once in the table, even mid-write */
	CHECK_EQ_INT(ut_fset_begin(f, true), 0);
	CHECK_EQ_INT(ut_ftable_add(t, "bar_fn", "libbar"), NR_BASE + 3);
	CHECK_EQ_INT(ut_fset_write(f, "bar_fn", 6, bad, sizeof(bad)), 0);
	CHECK_EQ_INT(ut_fset_commit(f), 0);
	CHECK_EQ_STR(list(f, NULL), "bar_fn [libbar]\n");

	/* '>' drops cached entries at open time, even if nothing is written */
	SET(f, "*:mod:libqux");
	CHECK_EQ_INT(ut_fset_nr_pending(f), 1);
	CHECK_EQ_INT(ut_fset_begin(f, true), 0);
	CHECK_EQ_INT(ut_fset_nr_pending(f), 0);
	CHECK_EQ_INT(ut_fset_commit(f), 0);
	CHECK(!ut_fset_active(f));

	/* module-name globs are cached too and fire on any module they match */
	SET(f, "q*:mod:libq*");
	CHECK_EQ_INT(ut_ftable_add(t, "qfunc", "libquux"), NR_BASE + 4);
	CHECK_EQ_INT(ut_fset_apply_pending(f, "libquux"), 1);
	CHECK_EQ_STR(list(f, NULL), "qfunc [libquux]\n");
	/* applying for an unrelated module is a no-op */
	CHECK_EQ_INT(ut_fset_apply_pending(f, "libnone"), 0);
	ut_fset_free(n);
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(commands)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	struct ut_fcmd *c;
	char bad[64];
	size_t n;

	ADD(f, "parse_*:traceon main_loop:traceoff:5 do_work:mod:libm");
	ADD(f, "helper_a:dump helper_b:cpudump:7 inflate:stacktrace:0x10 deflate:stacktrace:");
	/* commands do not select functions */
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER),
		     "do_work [libm]\n"
		     "parse_args:traceon:unlimited\n"
		     "parse_file:traceon:unlimited\n"
		     "main_loop:traceoff:count=5\n"
		     "helper_a:dump:count=1\n"
		     "helper_b:cpudump:count=1\n"
		     "inflate:stacktrace:count=16\n"
		     "deflate:stacktrace:unlimited\n");
	c = ut_fset_cmds(f, &n);
	CHECK_EQ_INT(n, 7);
	CHECK_EQ_INT(c[2].func, MAIN_LOOP);
	CHECK_EQ_INT(c[2].type, UT_FCMD_TRACEOFF);
	CHECK(c[2].counted);
	CHECK_EQ_INT(c[2].count, 5);
	CHECK(!c[0].counted);
	CHECK_EQ_INT(c[0].count, -1);
	CHECK_EQ_STR(ut_fcmd_name(UT_FCMD_CPUDUMP), "cpudump");

	/* counted and unlimited forms coexist; an existing one keeps its count */
	ADD(f, "main_loop:traceoff main_loop:traceoff:9");
	c = ut_fset_cmds(f, &n);
	CHECK_EQ_INT(n, 8);
	CHECK_EQ_INT(c[2].count, 5);

	/* the runtime decrements in place */
	c[2].count = 0;
	CHECK(strstr(list(f, NULL), "main_loop:traceoff:count=0\n"));

	/* removal: "!f:cmd" takes the unlimited one, "!f:cmd:N" the counted one */
	ADD(f, "!main_loop:traceoff");
	CHECK(strstr(list(f, NULL), "main_loop:traceoff:count=0\n"));
	CHECK(!strstr(list(f, NULL), "main_loop:traceoff:unlimited"));
	CHECK_EQ_INT(wr(f, "!main_loop:traceoff", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "!main_loop:traceoff");
	ADD(f, "!main_loop:traceoff:count=0"); /* as listed: the count is not read */
	CHECK(!strstr(list(f, NULL), "main_loop:traceoff"));
	ADD(f, "!parse_args:traceon");
	/* dump is always counted: any form removes it */
	ADD(f, "!helper_a:dump !helper_b:cpudump:3");
	/* "f:cmd:" (empty count) is the counted form, showing unlimited */
	CHECK_EQ_INT(wr(f, "!deflate:stacktrace", false, bad), -EINVAL);
	ADD(f, "!*:stacktrace:1");
	CHECK_EQ_STR(list(f, NULL), "do_work [libm]\n"
				    "parse_file:traceon:unlimited\n");
	ADD(f, "helper*:stacktrace");
	ADD(f, "!:stacktrace !parse_*:traceon");
	CHECK_EQ_STR(list(f, NULL), "do_work [libm]\n");

	/* '>' replaces the functions but leaves commands alone */
	ADD(f, "helper_a:traceon");
	SET(f, "main_loop");
	CHECK_EQ_STR(list(f, NULL), "main_loop\nhelper_a:traceon:unlimited\n");
	SET(f, "");
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER),
		     UT_FSET_EMPTY_FILTER "helper_a:traceon:unlimited\n");
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(command_errors)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	struct ut_fset *n = ut_fset_new(t, UT_FSET_NOTRACE);
	struct ut_fset *g = ut_fset_new(t, UT_FSET_GRAPH);
	char bad[64];
	size_t nr;

	CHECK_EQ_INT(wr(f, "main_loop:bogus", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "main_loop:bogus");
	CHECK_EQ_INT(wr(f, "main_loop:", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "main_loop:snapshot", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "main_loop:enable_event:sched:sched_switch", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "main_loop:disable_event:sched:sched_switch:2", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "main_loop:traceon:abc", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "main_loop:traceon:-1", false, bad), -EINVAL);
	CHECK_EQ_INT(wr(f, "nothing:traceon", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "nothing:traceon");
	CHECK_EQ_INT(wr(f, "!main_loop:traceon", false, bad), -EINVAL);
	ut_fset_cmds(f, &nr);
	CHECK_EQ_INT(nr, 0);
	/* not accepted in notrace or the graph files */
	CHECK_EQ_INT(wr(n, "main_loop:traceon", false, bad), -EINVAL);
	CHECK_EQ_STR(bad, "main_loop:traceon");
	CHECK_EQ_INT(wr(g, "main_loop:traceoff:1", false, bad), -EINVAL);
	/* the graph files take :mod: but cache nothing */
	CHECK_EQ_INT(wr(g, "*:mod:libz", true, bad), 0);
	CHECK_EQ_INT(ut_fset_count(g), 3);
	CHECK_EQ_INT(wr(g, "*:mod:libabsent", true, bad), -EINVAL);
	CHECK_EQ_INT(ut_fset_nr_pending(g), 0);
	ut_fset_free(g);
	ut_fset_free(n);
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(notrace_and_decision)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	struct ut_fset *n = ut_fset_new(t, UT_FSET_NOTRACE);
	char bad[64];
	size_t i;

	CHECK_EQ_STR(list(n, UT_FSET_EMPTY_NOTRACE), "#### no functions disabled ####\n");
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER), "#### all functions enabled ####\n");
	/* both empty: everything */
	for (i = 0; i < NR_BASE; i++)
		CHECK(ut_fset_traced(f, n, i));
	CHECK(ut_fset_traced(NULL, NULL, 0));
	/* notrace alone */
	SET(n, "helper*");
	CHECK(!ut_fset_traced(f, n, HELPER_A));
	CHECK(ut_fset_traced(f, n, MAIN_LOOP));
	CHECK(!ut_fset_traced(NULL, n, HELPER_B));
	/* filter alone */
	SET(n, "");
	SET(f, "helper* main_loop");
	CHECK(ut_fset_traced(f, n, HELPER_A));
	CHECK(!ut_fset_traced(f, n, DO_WORK));
	CHECK(!ut_fset_traced(f, NULL, DO_WORK));
	/* notrace beats filter */
	SET(n, "helper_a");
	CHECK(!ut_fset_traced(f, n, HELPER_A));
	CHECK(ut_fset_traced(f, n, HELPER_B));
	CHECK(ut_fset_traced(f, n, MAIN_LOOP));
	CHECK_EQ_STR(list(n, UT_FSET_EMPTY_NOTRACE), "helper_a\n");
	/* out of range is never traced */
	CHECK(!ut_fset_traced(f, n, 1000));
	CHECK(!ut_fset_contains(f, 1000));
	ut_fset_free(n);
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(module_unload)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	struct ut_fset *n = ut_fset_new(t, UT_FSET_NOTRACE);
	char bad[64], *out;
	size_t nr;

	SET(f, ":mod:libz");
	SET(n, "do_work");
	ADD(f, "inflate:traceon main_loop:traceoff");
	CHECK_EQ_INT(ut_ftable_remove_module(t, "libz"), 3);
	CHECK_EQ_INT(ut_ftable_remove_module(t, "libz"), 0);
	CHECK_EQ_INT(ut_ftable_remove_module(t, NULL), -EINVAL);
	/* the filter held only libz: it is empty again, i.e. traces all */
	CHECK(!ut_fset_active(f));
	CHECK_EQ_STR(list(f, UT_FSET_EMPTY_FILTER),
		     UT_FSET_EMPTY_FILTER "main_loop:traceoff:unlimited\n");
	ut_fset_cmds(f, &nr);
	CHECK_EQ_INT(nr, 1);
	CHECK(ut_ftable_get(t, INFLATE) == NULL);
	CHECK(!ut_fset_traced(f, n, INFLATE));
	CHECK(ut_fset_traced(f, n, MAIN_LOOP));
	CHECK(!ut_fset_traced(f, n, DO_WORK));
	CHECK(!ut_fset_traced(f, n, M_DO_WORK));
	/* dead functions no longer match, nor count as lines */
	CHECK_EQ_INT(wr(f, "inflate", false, bad), -EINVAL);
	SET(f, "7");
	CHECK_EQ_STR(list(f, NULL), "do_work [libm]\nmain_loop:traceoff:unlimited\n");
	CHECK_EQ_INT(wr(f, "8", false, bad), -EINVAL);
	CHECK(ut_ftable_format_available(t, &out, NULL) == 0);
	CHECK_EQ_STR(out, "main_loop\nparse_args\nparse_file\ndo_work\nhelper_a\nhelper_b\n"
			  "do_work [libm]\n");
	free(out);
	/* the module's name can be cached again now that it is gone */
	SET(f, "*:mod:libz");
	CHECK_EQ_INT(ut_fset_nr_pending(f), 1);
	ut_fset_free(n);
	ut_fset_free(f);
	ut_ftable_free(t);
}

TEST(many_functions)
{
	struct ut_ftable *t = ut_ftable_new();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER);
	char name[32], bad[64];
	int i;

	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "fn_%d", i);
		CHECK_EQ_INT(ut_ftable_add(t, name, i % 2 ? "libodd" : NULL), i);
	}
	SET(f, "fn_4*");
	CHECK_EQ_INT(ut_fset_count(f), 1111);
	ADD(f, "!*:mod:libodd");
	CHECK_EQ_INT(ut_fset_count(f), 556);
	SET(f, "5000");
	CHECK(ut_fset_contains(f, 4999));
	CHECK(!ut_fset_contains(f, 4998));
	ut_fset_free(f);
	ut_ftable_free(t);
}

/* The words a ">" on set_ftrace_filter keeps: commands, not patterns. */
TEST(command_words)
{
	static const struct {
		const char *w;
		bool cmd;
	} cases[] = {
		{"f:traceoff", true},      {"f:traceoff:2", true},   {"!f:traceoff:0", true},
		{"*:stacktrace", true},    {"5:dump", true},         {"f:bogus:1", true},
		{"f", false},              {"!f", false},            {"f*", false},
		{"f:mod:libz", false},     {":mod:libz", false},     {"!f:mod:libz", false},
		{"f:mod", false},          {"f:modx", true},         {"f:mo", true},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_EQ_INT(ut_fset_word_is_cmd(cases[i].w, strlen(cases[i].w)), cases[i].cmd);
	/* not NUL-terminated: only @len bytes count */
	CHECK(!ut_fset_word_is_cmd("f:traceoff", 1));
	CHECK(ut_fset_word_is_cmd("f:mod:x", 5) == false);
	CHECK(ut_fset_word_is_cmd("f:dump x", 6));
}

/* Other names of a function (symbols at its address): any selects it, listings print its own. */
TEST(aliases)
{
	struct ut_ftable *t = table();
	struct ut_fset *f = ut_fset_new(t, UT_FSET_FILTER), *n = ut_fset_new(t, UT_FSET_NOTRACE);
	long area = ut_ftable_add(t, "area", NULL), vol;
	char bad[64], *out;

	CHECK_EQ_INT(ut_ftable_add_alias(t, (size_t)area, "area_impl"), 0);
	vol = ut_ftable_add(t, "vol", "libz");
	CHECK_EQ_INT(ut_ftable_add_alias(t, (size_t)vol, "__vol"), 0);
	CHECK_EQ_INT(ut_ftable_add_alias(t, (size_t)vol, "volume"), 0);
	/* by entry: not below an entry that has some, nor past the table */
	CHECK_EQ_INT(ut_ftable_add_alias(t, (size_t)area, "late"), -EINVAL);
	CHECK_EQ_INT(ut_ftable_add_alias(t, (size_t)vol + 1, "none"), -EINVAL);
	CHECK_EQ_STR(ut_ftable_alias(t, (size_t)vol, 1), "volume");
	CHECK(ut_ftable_alias(t, (size_t)vol, 2) == NULL);
	CHECK(ut_ftable_alias(t, MAIN_LOOP, 0) == NULL);
	CHECK(ut_ftable_alias(t, 999, 0) == NULL);

	SET(f, "area_impl");
	CHECK_EQ_STR(list(f, NULL), "area\n");
	SET(f, "*_impl __vol area"); /* each function once however many names match */
	CHECK_EQ_STR(list(f, NULL), "area\nvol [libz]\n");
	CHECK_EQ_INT(ut_fset_count(f), 2);
	ADD(f, "!area_impl");
	CHECK_EQ_STR(list(f, NULL), "vol [libz]\n");
	SET(f, "volume:mod:libz");
	CHECK_EQ_STR(list(f, NULL), "vol [libz]\n");
	CHECK_EQ_INT(wr(f, "volume:mod:libm", true, bad), -EINVAL);
	/* notrace and the decision */
	SET(f, "area vol");
	SET(n, "__vol");
	CHECK(ut_fset_traced(f, n, (size_t)area));
	CHECK(!ut_fset_traced(f, n, (size_t)vol));
	/* commands list the function's own name */
	SET(f, "area_impl:traceoff:2 __vol:stacktrace");
	CHECK_EQ_STR(list(f, NULL), "area:traceoff:count=2\nvol:stacktrace:unlimited\n");
	ADD(f, "!area_impl:traceoff:0");
	CHECK_EQ_STR(list(f, NULL), "vol:stacktrace:unlimited\n");
	/* one name a line in available_filter_functions; the others in listings */
	CHECK(ut_ftable_format_available(t, &out, NULL) == 0);
	CHECK(strstr(out, "do_work [libm]\narea\nvol [libz]\n") != NULL);
	free(out);
	CHECK(ut_ftable_format_listing(t, &out, NULL) == 0);
	CHECK(strstr(out, "do_work [libm]\narea [= area_impl]\nvol [libz] [= __vol, volume]\n") != NULL);
	free(out);
	out = ut_ftable_alias_note(t, (size_t)vol);
	CHECK_EQ_STR(out, " [= __vol, volume]");
	free(out);
	CHECK(ut_ftable_alias_note(t, DO_WORK) == NULL);
	/* line numbers count functions, not names */
	SET(f, "12");
	CHECK_EQ_STR(list(f, NULL), "vol [libz]\nvol:stacktrace:unlimited\n");
	ut_fset_free(n);
	ut_fset_free(f);
	ut_ftable_free(t);
}

int main(void)
{
	RUN(table_basics);
	RUN(pattern_classes);
	RUN(whitespace_and_words);
	RUN(truncate_vs_append_and_negation);
	RUN(no_match_is_einval_with_word);
	RUN(commit_semantics);
	RUN(numeric_index);
	RUN(modules);
	RUN(module_file_names);
	RUN(pending_modules);
	RUN(commands);
	RUN(command_errors);
	RUN(notrace_and_decision);
	RUN(module_unload);
	RUN(many_functions);
	RUN(command_words);
	RUN(aliases);
	TEST_EXIT();
}
