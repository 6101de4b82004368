// SPDX-License-Identifier: MIT
/* Event-trigger lines (common/evtrigger.c): parsing, checks, the kernel's texts. */
#include <errno.h>
#include <stdint.h>

#include "common/evtrigger.h"
#include "common/usdt_events.h"
#include "ut_test.h"

static int parse(const char *s, struct ut_evtrig *t, struct ut_evtrig_err *err)
{
	return ut_evtrig_parse(s, strlen(s), t, err);
}

/* The trigger file's line for @s, parsed (count: the one written). */
static const char *printed(const char *s)
{
	static char buf[600];
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	CHECK(parse(s, &t, &err) == 0);
	ut_evtrig_print(&t, t.counted ? t.count : -1, buf, sizeof(buf));
	return buf;
}

TEST(plain)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	CHECK(parse("  traceoff\n", &t, &err) == 0);
	CHECK_EQ_INT(t.cmd, UT_ET_TRACEOFF);
	CHECK(!t.counted);
	CHECK_EQ_STR(printed("traceoff"), "traceoff:unlimited");
	CHECK_EQ_STR(printed("traceon:3"), "traceon:count=3");
	CHECK_EQ_STR(printed("stacktrace:0"), "stacktrace:count=0");
	CHECK_EQ_STR(printed("enable_event:utest:konst:1"), "enable_event:utest:konst:count=1");
	CHECK_EQ_STR(printed("disable_event:a:b"), "disable_event:a:b:unlimited");
	CHECK_EQ_STR(printed("traceoff:2 if a > 1"), "traceoff:count=2 if a > 1");
	CHECK_EQ_STR(printed("snapshot"), "snapshot:unlimited");
	CHECK_EQ_STR(printed("snapshot:1 if arg1 > 0"), "snapshot:count=1 if arg1 > 0");
	CHECK(parse("!stacktrace:1", &t, &err) == 0);
	CHECK(t.remove && t.cmd == UT_ET_STACKTRACE && !t.counted);
	CHECK(parse("!enable_event:s:e", &t, &err) == 0);
	CHECK_EQ_STR(t.sys, "s");
	CHECK_EQ_STR(t.evt, "e");
}

TEST(plain_errors)
{
	static const char *const bad[] = {"",	       "   ",	     "bogus",	     "traceoff:abc",
					  "traceoff:1:2", "snapshot:x",  "enable_event",
					  "enable_event:s", "enable_event:s:e:1:2", "traceoff if",
					  "traceoff junk", "traceoff:-1", "hist"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ut_evtrig t;
		struct ut_evtrig_err err = {0};

		if (parse(bad[i], &t, &err) != -EINVAL) {
			fprintf(stderr, "accepted: '%s'\n", bad[i]);
			CHECK(0);
		}
		CHECK(!err.logged); /* the kernel logs no plain-trigger error */
	}
}

TEST(hist)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	CHECK(parse("hist:keys=arg1.log2,common_pid.execname:vals=arg2,hitcount:"
		    "sort=arg2.descending,hitcount:size=100:pause",
		    &t, &err) == 0);
	CHECK_EQ_INT(t.cmd, UT_ET_HIST);
	CHECK_EQ_INT(t.nkeys, 2);
	CHECK_EQ_INT(t.keys[0].flags, UT_HF_LOG2);
	CHECK_EQ_INT(t.keys[1].flags, UT_HF_EXECNAME);
	CHECK_EQ_INT(t.nvals, 1);
	CHECK_EQ_INT(t.nsort, 2);
	CHECK_EQ_INT(t.sort[0].what, 1);
	CHECK(t.sort[0].descending);
	CHECK_EQ_INT(t.sort[1].what, 0);
	CHECK_EQ_INT(t.size, 128); /* rounded up to a power of two, 128 at least */
	CHECK(t.pause);
	CHECK_EQ_STR(printed("hist:keys=arg1.log2,common_pid.execname:vals=arg2,hitcount:"
			     "sort=arg2.descending,hitcount:size=100:pause"),
		     "hist:keys=arg1.log2,common_pid.execname:vals=hitcount,arg2:"
		     "sort=arg2.descending,hitcount:size=128 [paused]");
	CHECK_EQ_STR(printed("hist:key=arg1"), "hist:keys=arg1:vals=hitcount:sort=hitcount:size=2048 [active]");
	CHECK_EQ_STR(printed("hist:keys=arg1.buckets=10:values=arg2.hex:sort=arg1"),
		     "hist:keys=arg1.buckets=10:vals=hitcount,arg2.hex:sort=arg1.buckets=10:size=2048 [active]");
	CHECK_EQ_STR(printed("hist:keys=arg1.hex,arg2.sym,arg3.sym-offset"),
		     "hist:keys=arg1.hex,arg2.sym,arg3.sym-offset:vals=hitcount:sort=hitcount:size=2048 [active]");
}

/* @s fails with @msg at @pos, logged (hist errors), on an event of @nargs arguments. */
static void hist_fails(const char *s, unsigned nargs, const char *msg, size_t pos)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err = {0};
	struct ut_evfmt fmt = {.nargs = (uint8_t)nargs};
	int ret = parse(s, &t, &err);

	if (!ret)
		ret = ut_evtrig_check(&t, &fmt, s, &err);
	CHECK_EQ_INT(ret, -EINVAL);
	CHECK_EQ_STR(err.msg, msg);
	CHECK_EQ_INT(err.pos, pos);
	CHECK(err.logged);
}

TEST(hist_errors)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	hist_fails("hist:keys=nosuch", 2, "Couldn't find field", 10);
	hist_fails("hist:keys=arg3", 2, "Couldn't find field", 10);
	hist_fails("hist:keys=arg1:vals=arg9", 2, "Couldn't find field", 20);
	hist_fails("hist:keys=arg1.bogus", 2, "Invalid field modifier", 10);
	hist_fails("hist:keys=arg1.execname", 2, "Invalid field modifier", 10);
	hist_fails("hist:keys=arg1:sort=arg2", 2, "Sort field must be a key or a val", 20);
	hist_fails("hist:keys=arg1:sort=arg1.up", 2, "Invalid sort modifier", 20);
	hist_fails("hist:keys=arg1:sort=hitcount,arg1,hitcount", 2, "Too many sort fields (Max = 2)",
		   34);
	hist_fails("traceoff if arg9 > 1", 2, "Field not found", 17);
	CHECK(parse("hist:vals=arg1", &t, &err) == -EINVAL);
	CHECK(parse("hist:keys=a,b,c,d", &t, &err) == -EINVAL);
	CHECK(parse("hist:keys=a:size=0", &t, &err) == -EINVAL);
	CHECK(parse("hist:keys=a:size=262144", &t, &err) == -EINVAL);
	CHECK(parse("hist:keys=a:bogus", &t, &err) == -EINVAL);
	CHECK(parse("hist:keys=a.buckets=0", &t, &err) == -EINVAL);
	CHECK(parse("hist:keys=a:vals=b,c,d,e", &t, &err) == -EINVAL);
}

TEST(ident_and_config)
{
	struct ut_evtrig a, b;
	struct ut_evtrig_err err;
	char x[300], y[300];

	CHECK(parse("traceoff:5 if a > 1", &a, &err) == 0);
	CHECK(parse("!traceoff", &b, &err) == 0);
	ut_evtrig_ident(&a, x, sizeof(x));
	ut_evtrig_ident(&b, y, sizeof(y));
	CHECK_EQ_STR(x, y);
	ut_evtrig_config_text(&a, x, sizeof(x));
	CHECK_EQ_STR(x, "traceoff:5 if a > 1");
	CHECK(parse("hist:keys=arg1:sort=hitcount.descending:pause", &a, &err) == 0);
	ut_evtrig_config_text(&a, x, sizeof(x));
	CHECK_EQ_STR(x, "hist:keys=arg1:vals=hitcount:sort=hitcount.descending:size=2048:pause");
	CHECK(parse(x, &b, &err) == 0);
	ut_evtrig_config_text(&b, y, sizeof(y));
	CHECK_EQ_STR(x, y);
	/* the kernel prints a sort key's modifier, and takes none back */
	CHECK(parse("hist:keys=arg1.log2:sort=arg1", &a, &err) == 0);
	ut_evtrig_ident(&a, x, sizeof(x));
	CHECK_EQ_STR(x, "hist:keys=arg1.log2:vals=hitcount:sort=arg1.log2:size=2048");
	ut_evtrig_config_text(&a, x, sizeof(x));
	CHECK_EQ_STR(x, "hist:keys=arg1.log2:vals=hitcount:sort=arg1:size=2048");
	CHECK(parse(x, &b, &err) == 0);
}

TEST(key_values)
{
	struct ut_hist_field log2 = {.flags = UT_HF_LOG2}, b10 = {.flags = UT_HF_BUCKETS, .buckets = 10};

	CHECK_EQ_INT(ut_hist_key_value(&log2, 0), 0);
	CHECK_EQ_INT(ut_hist_key_value(&log2, 1), 0);
	CHECK_EQ_INT(ut_hist_key_value(&log2, 2), 1);
	CHECK_EQ_INT(ut_hist_key_value(&log2, 3), 2);
	CHECK_EQ_INT(ut_hist_key_value(&log2, 1000), 10);
	CHECK_EQ_INT(ut_hist_key_value(&b10, 37), 30);
}

int main(void)
{
	RUN(plain);
	RUN(plain_errors);
	RUN(hist);
	RUN(hist_errors);
	RUN(ident_and_config);
	RUN(key_values);
	TEST_EXIT();
}
