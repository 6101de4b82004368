// SPDX-License-Identifier: MIT
/*
 * What hist variables do at a hit, shared by the process and the mount
 * (common/histvar_run.c: where a $ref reads, the values, read once), and
 * a synthetic event's record payload and its filter (common/synthrec.c).
 */
#include <stdint.h>
#include <string.h>

#include "common/evfilter.h"
#include "common/evtrigger.h"
#include "common/histvar_run.h"
#include "common/synth.h"
#include "common/synthrec.h"
#include "ut_test.h"

static struct ut_evtrig trig(const char *s)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	memset(&t, 0, sizeof(t));
	CHECK(ut_evtrig_parse(s, strlen(s), &t, &err) == 0);
	return t;
}

/* Where a $VAR is read from: a hist trigger defining it, on the onmatch() event if any. */
TEST(source)
{
	struct ut_evtrig start = trig("hist:keys=common_pid:ts0=common_timestamp.usecs");
	struct ut_evtrig end = trig("hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:"
				    "onmatch(ftrace.print).latency($lat)");
	struct ut_evtrig plain = trig("hist:keys=common_pid:lat=common_timestamp-$ts0");
	struct ut_evtrig two = trig("hist:keys=common_pid:a=common_pid,ts0=common_timestamp");
	struct ut_evtrig off = trig("traceoff");

	CHECK_EQ_INT(ut_histvar_source(&end, &start, "ftrace", "print", "ts0"), 0);
	CHECK_EQ_INT(ut_histvar_source(&end, &start, "sched", "sched_process_fork", "ts0"), -1);
	CHECK_EQ_INT(ut_histvar_source(&end, &start, "ftrace", "print", "lat"), -1);
	/* no onmatch(): any event's trigger */
	CHECK_EQ_INT(ut_histvar_source(&plain, &start, "sched", "sched_process_fork", "ts0"), 0);
	CHECK_EQ_INT(ut_histvar_source(&plain, &two, "a", "b", "ts0"), 1);
	CHECK_EQ_INT(ut_histvar_source(&plain, &off, "a", "b", "ts0"), -1);
}

/* What the test's operand callback gives: fields 10*i+j, the $refs of ctx (NULL: not set). */
static bool operand(void *ctx, unsigned i, unsigned j, uint64_t *x)
{
	const uint64_t *ref = ctx;

	if (!ref)
		return false;
	*x = *ref + 10 * (uint64_t)i + j;
	return true;
}

TEST(values)
{
	struct ut_evtrig t = trig("hist:keys=common_pid:a=common_pid-5*2,b=$a+1,c=$ext-$a,d=-($e)");
	uint64_t val[UT_HIST_MAX_VARS] = {0}, ref = 100;

	CHECK(ut_histvar_values(&t.hv, operand, &ref, val));
	/* a: operand (0,0) = 100, minus the constants 5*2 */
	CHECK_EQ_INT(val[0], 90);
	CHECK_EQ_INT(val[1], 91);                /* b: $a (own, earlier) + 1 */
	CHECK_EQ_INT(val[2], 120 - 90); /* c: $ext (operand 2,0) - $a */
	CHECK_EQ_INT((int64_t)val[3], -130); /* d: -($e), operand (3,0) */
	/* a $ref not set: the hit is dropped */
	CHECK(!ut_histvar_values(&t.hv, operand, NULL, val));
	/* a later variable is not an own earlier one: asked for */
	t = trig("hist:keys=common_pid:x=$y,y=common_pid");
	CHECK(ut_histvar_values(&t.hv, operand, &ref, val));
	CHECK_EQ_INT(val[0], 100);
	CHECK_EQ_INT(val[1], 110);
}

/* A variable per entry, read once. */
TEST(read_once)
{
	struct ut_hist_vars v;
	uint64_t x = 7;

	memset(&v, 0, sizeof(v));
	CHECK(!ut_hist_var_take(&v, 0, &x) && x == 7); /* not set: untouched */
	ut_hist_var_put(&v, 1, 42);
	CHECK(!ut_hist_var_take(&v, 0, &x));
	CHECK(ut_hist_var_take(&v, 1, &x) && x == 42);
	CHECK(!ut_hist_var_take(&v, 1, &x)); /* consumed */
	ut_hist_var_put(&v, 1, 43);
	ut_hist_var_put(&v, 1, 44); /* set again before a read: the last value */
	CHECK(ut_hist_var_take(&v, 1, &x) && x == 44);
	ut_hist_var_put(&v, UT_HIST_VARS, 1); /* out of range: nothing */
	CHECK(!ut_hist_var_take(&v, UT_HIST_VARS, &x) && v.set == 0);
}

TEST(synth_record)
{
	struct ut_synth_def d;
	struct ut_synth_err err;
	bool rm;
	const char *s = "ev u64 lat; s16 d; char name[]; char c[4]; u8 b";
	uint64_t rec[UT_SYNTH_REC_WORDS], args[5];
	unsigned sb;

	CHECK(ut_synth_parse(s, strlen(s), &d, &rm, &err) == 0 && d.nfields == 5);
	args[0] = 12345;
	args[1] = (uint64_t)-2;
	args[2] = (uint64_t)(uintptr_t)"hello";
	args[3] = (uint64_t)(uintptr_t)"toolong";
	args[4] = 0x1ff;
	sb = ut_synth_lay_out(&d, args, rec);
	CHECK_EQ_INT(sb, 6 + 4);
	CHECK_EQ_INT(rec[0], 12345);
	CHECK_EQ_INT((int64_t)rec[1], -2);  /* sign-extended from its 2 bytes */
	CHECK_EQ_INT(rec[4], 0xff);        /* cut to its byte */
	/* __data_loc: length << 16 | offset from the payload's start (after the 8 common bytes) */
	CHECK_EQ_INT(rec[2], 6u << 16 | (8 + 5 * 8));
	CHECK_EQ_INT(rec[3], 4u << 16 | (8 + 5 * 8 + 6));
	CHECK_EQ_STR((const char *)(rec + 5), "hello");
	CHECK_EQ_STR((const char *)(rec + 5) + 6, "too"); /* char[4]: 3 characters */
	args[2] = 0;					   /* no text: empty */
	sb = ut_synth_lay_out(&d, args, rec);
	CHECK_EQ_INT(rec[2], 1u << 16 | (8 + 5 * 8));
	CHECK_EQ_INT(sb, 1 + 4);
}

/* The filter judges the record as its format lays it out: common_pid, a number, a string. */
TEST(synth_filter)
{
	static const struct ut_evf_field fields[] = {
	    {.name = "lat", .offset = 8, .size = 8, .kind = UT_EVF_NUM},
	    {.name = "name", .offset = 16, .size = 4, .kind = UT_EVF_STRLOC},
	};
	struct ut_synth_def d;
	struct ut_synth_err err;
	struct ut_evf_error fe;
	struct ut_evf *f = NULL;
	bool rm;
	uint64_t rec[1 + UT_SYNTH_REC_WORDS], args[2] = {500, (uint64_t)(uintptr_t)"abc"};
	unsigned sb;

	CHECK(ut_synth_parse("ev u64 lat; char name[]", 23, &d, &rm, &err) == 0);
	sb = ut_synth_lay_out(&d, args, rec + 1);
	CHECK(ut_evf_parse("lat > 100 && name == \"abc\" && common_pid == 7", fields, 2, &f,
			   &fe) == 0);
	CHECK(ut_synth_passes(f, rec, d.nfields, sb, 7, NULL, 0));
	CHECK(!ut_synth_passes(f, rec, d.nfields, sb, 8, NULL, 0));
	args[0] = 50;
	sb = ut_synth_lay_out(&d, args, rec + 1);
	CHECK(!ut_synth_passes(f, rec, d.nfields, sb, 7, NULL, 0));
	ut_evf_free(f);
}

int main(void)
{
	RUN(source);
	RUN(values);
	RUN(read_once);
	RUN(synth_record);
	RUN(synth_filter);
	TEST_EXIT();
}
