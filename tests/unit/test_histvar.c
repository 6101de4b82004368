// SPDX-License-Identifier: MIT
/*
 * Hist variables, inter-event actions (common/histvar.c) and synthetic
 * event definitions (common/synth.c): parsing, the kernel's messages, texts;
 * the strings of a hist entry (common/histstr.c).
 */
#include <errno.h>
#include <stdint.h>

#include "common/evtrigger.h"
#include "common/evtrigger_filter.h"
#include "common/histstr.h"
#include "common/synth.h"
#include "common/usdt_events.h"
#include "ut_test.h"

static int parse(const char *s, struct ut_evtrig *t, struct ut_evtrig_err *err)
{
	memset(err, 0, sizeof(*err));
	return ut_evtrig_parse(s, strlen(s), t, err);
}

static const char *printed(const char *s)
{
	static char buf[600];
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	CHECK(parse(s, &t, &err) == 0);
	ut_evtrig_print(&t, -1, buf, sizeof(buf));
	return buf;
}

TEST(variables)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	CHECK(parse("hist:keys=common_pid:ts0=common_timestamp.usecs", &t, &err) == 0);
	CHECK_EQ_INT(t.hv.nvars, 1);
	CHECK_EQ_STR(t.hv.vars[0].name, "ts0");
	CHECK_EQ_INT(t.hv.vars[0].op[0].kind, UT_HO_TS);
	CHECK(t.hv.vars[0].op[0].usecs && t.hv.timestamps);
	CHECK_EQ_STR(printed("hist:keys=common_pid:ts0=common_timestamp.usecs"),
		     "hist:keys=common_pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:"
		     "size=2048:clock=global [active]");
	CHECK(parse("hist:keys=arg1:lat=common_timestamp.usecs-$ts0+5,x=arg2", &t, &err) == 0);
	CHECK_EQ_INT(t.hv.nvars, 2);
	CHECK_EQ_INT(t.hv.vars[0].nops, 3);
	CHECK(t.hv.vars[0].op[1].op == '-' && t.hv.vars[0].op[1].kind == UT_HO_VAR);
	CHECK_EQ_STR(t.hv.vars[0].op[1].name, "ts0");
	CHECK(t.hv.vars[0].op[2].op == '+' && t.hv.vars[0].op[2].k == 5);
}

/* The value @s's only variable folds to (all constants). */
static uint64_t folded(const char *s)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	CHECK(parse(s, &t, &err) == 0);
	CHECK_EQ_INT(t.hv.vars[0].nops, 1);
	CHECK_EQ_INT(t.hv.vars[0].op[0].kind, UT_HO_CONST);
	return t.hv.vars[0].op[0].k;
}

/* The kernel's precedence (* and / first, left to right) and constant folding. */
TEST(expressions)
{
	static const uint64_t x[4] = {16, 8, 4, 2};
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	CHECK(folded("hist:keys=common_pid:x=123") == 123);
	CHECK(folded("hist:keys=common_pid:x=16-8-4-2") == 2);
	CHECK(folded("hist:keys=common_pid:x=64/8/4/2") == 1);
	CHECK(folded("hist:keys=common_pid:x=16-8+4+2") == 14);
	CHECK(folded("hist:keys=common_pid:x=4*3/2*2") == 12);
	CHECK(folded("hist:keys=common_pid:x=4+3*2-2") == 8);
	CHECK(folded("hist:keys=common_pid:x=4+6/2-2") == 5);
	CHECK(folded("hist:keys=common_pid:x=-(2*3)") == 6);
	CHECK(parse("hist:keys=common_pid:x=-(2*3)", &t, &err) == 0 && t.hv.vars[0].neg);
	CHECK_EQ_STR(printed("hist:keys=common_pid:x=16-8-4-2"),
		     "hist:keys=common_pid:vals=hitcount:x=2:sort=hitcount:size=2048 [active]");
	/* a constant subtree folds, the rest stays: 2*3 is a subtree, $a+1 is not constant */
	CHECK_EQ_STR(printed("hist:keys=arg1:a=arg2,x=$a+2*3,y=$a+1+2,z=1+2+arg2*arg3"),
		     "hist:keys=arg1:vals=hitcount:a=arg2,x=$a+6,y=$a+1+2,z=3+arg2*arg3:"
		     "sort=hitcount:size=2048 [active]");
	CHECK(parse("hist:keys=arg1:x=arg1-arg2*arg3/arg4", &t, &err) == 0);
	CHECK_EQ_INT(t.hv.vars[0].nops, 4);
	CHECK(ut_histvar_eval(t.hv.vars[0].op, x, 4) == 16 - 8 * 4 / 2);
	CHECK(parse("hist:keys=arg1:x=arg1/arg2", &t, &err) == 0);
	CHECK(ut_histvar_eval(t.hv.vars[0].op, (const uint64_t[]){7, 0}, 2) == UINT64_MAX);
	CHECK(ut_histvar_eval(t.hv.vars[0].op, (const uint64_t[]){7, 2}, 2) == 3);
}

/* @s with its ^ taken out fails with @msg at the ^ (the offset error_log's caret shows). */
static void bad_at(const char *s, const char *msg)
{
	char text[200];
	const char *caret = strchr(s, '^');
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	snprintf(text, sizeof(text), "%.*s%s", (int)(caret - s), s, caret + 1);
	if (parse(text, &t, &err) != -EINVAL || strcmp(err.msg, msg) != 0 ||
	    err.pos != (size_t)(caret - s)) {
		fprintf(stderr, "'%s': %s at %zu, wanted %s\n", text,
			err.msg ? err.msg : "accepted", err.pos, msg);
		CHECK(0);
	}
}

/* The kernel's errors, where its error_log puts the caret (kselftest trigger-hist-expressions). */
TEST(expression_errors)
{
	bad_at("hist:keys=common_pid:x=32+^10*3/20-4", "Too many subexpressions (3 max)");
	bad_at("hist:keys=common_pid:x=^1+2+3+4+5", "Too many subexpressions (3 max)");
	bad_at("hist:keys=common_pid:x=-(^1)+2", "Unary minus not supported in sub-expressions");
	bad_at("hist:keys=common_pid:x=3/^0", "Division by zero");
	bad_at("hist:keys=common_pid:x=arg1+7/^0", "Division by zero");
}

TEST(actions)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;
	const char *m = "hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:"
			"onmatch(python.function__entry).trace(pylat,$lat,arg3)";

	CHECK(parse(m, &t, &err) == 0);
	CHECK_EQ_INT(t.hv.nactions, 1);
	CHECK_EQ_INT(t.hv.act[0].handler, UT_HH_ONMATCH);
	CHECK_EQ_STR(t.hv.act[0].sys, "python");
	CHECK_EQ_STR(t.hv.act[0].evt, "function__entry");
	CHECK_EQ_STR(t.hv.act[0].synth, "pylat");
	CHECK_EQ_INT(t.hv.act[0].nparams, 2);
	CHECK_EQ_STR(t.hv.act[0].param[0], "$lat");
	CHECK_EQ_STR(printed(m),
		     "hist:keys=common_pid:vals=hitcount:lat=common_timestamp.usecs-$ts0:"
		     "sort=hitcount:size=2048:clock=global:onmatch(python.function__entry)."
		     "trace(pylat,$lat,arg3) [active]");
	/* the older spelling: the synthetic event's name is the action */
	CHECK(parse("hist:keys=arg1:onmatch(a.b).lat($x,arg2)", &t, &err) == 0);
	CHECK(!t.hv.act[0].trace_kw);
	CHECK_EQ_STR(t.hv.act[0].synth, "lat");
	CHECK_EQ_STR(
	    printed("hist:keys=arg1:onmatch(a.b).lat($x,arg2)"),
	    "hist:keys=arg1:vals=hitcount:sort=hitcount:size=2048:onmatch(a.b).lat($x,arg2)"
	    " [active]");
	CHECK(parse("hist:keys=arg1:v=arg2:onchange($v).snapshot()", &t, &err) == 0);
	CHECK_EQ_INT(t.hv.act[0].action, UT_HA_SNAPSHOT);
	CHECK_EQ_STR(printed("hist:keys=arg1:v=arg2:onchange($v).snapshot()"),
		     "hist:keys=arg1:vals=hitcount:v=arg2:sort=hitcount:size=2048:"
		     "onchange($v).snapshot() [active]");
	CHECK(parse("hist:keys=arg1:v=arg2:onmax($v).save(arg2,arg3)", &t, &err) == 0);
	CHECK_EQ_INT(t.hv.act[0].handler, UT_HH_ONMAX);
	CHECK_EQ_INT(t.hv.act[0].action, UT_HA_SAVE);
	CHECK_EQ_STR(t.hv.act[0].var, "v");
	CHECK(parse("hist:keys=arg1:v=arg2:onchange($v).save(arg3)", &t, &err) == 0);
	CHECK_EQ_INT(t.hv.act[0].handler, UT_HH_ONCHANGE);
}

static void bad(const char *s, const char *msg)
{
	struct ut_evtrig t;
	struct ut_evtrig_err err;

	if (parse(s, &t, &err) != -EINVAL || strcmp(err.msg, msg) != 0) {
		fprintf(stderr, "'%s': %s, wanted %s\n", s, err.msg ? err.msg : "accepted", msg);
		CHECK(0);
	}
}

TEST(errors)
{
	bad("hist:keys=arg1:ts0=", "Empty assignment");
	bad("hist:keys=arg1:a=arg1,a=arg2", "Variable already defined");
	bad("hist:keys=arg1:a=arg1,b=arg1,c=arg1,d=arg1,e=arg1", "Too many variables defined");
	bad("hist:keys=arg1:a=arg1+arg2+arg3+arg1+arg2", "Too many subexpressions (3 max)");
	bad("hist:keys=arg1:a=common_timestamp.usecs-common_timestamp",
	    "Timestamp units in expression don't match");
	bad("hist:keys=arg1:a=12x", "Expecting numeric literal");
	bad("hist:keys=arg1:onmatch(ab).x()", "Missing subsystem");
	bad("hist:keys=arg1:onmatch(a.b", "No closing paren found");
	bad("hist:keys=arg1:onmax(v).save(a)", "For onmax(x) or onchange(x), x must be a variable");
	bad("hist:keys=arg1:v=arg2:onmax($v).save()", "No params found for save()");
	bad("hist:keys=arg1:onmatch(a.b).save(arg1)", "Handler doesn't support action");
	bad("hist:keys=arg1:onmatch(a.b).snapshot()", "Handler doesn't support action");
	bad("hist:keys=arg1:onmatch(a.b)", "No action found");
	bad("hist:keys=arg1:onmatch(a.b).trace()", "Couldn't find synthetic event");
}

TEST(check)
{
	struct ut_evfmt fmt = {.nargs = 3, .size = {8, 8, 4}, .argname = {"", "", "lineno"}};
	struct ut_evtrig t;
	struct ut_evtrig_err err;
	const char *s =
	    "hist:keys=common_pid:lat=common_timestamp-$ts0:onmatch(p.e).trace(x,$lat,lineno)";

	CHECK(parse(s, &t, &err) == 0);
	CHECK(ut_evtrig_check(&t, &fmt, s, &err) == 0);
	/* onmatch's $VAR may be the matched event's: checked where the scope's triggers are known */
	s = "hist:keys=common_pid:onmatch(p.e).trace(x,$other)";
	CHECK(parse(s, &t, &err) == 0);
	CHECK(ut_evtrig_check(&t, &fmt, s, &err) == 0);
	s = "hist:keys=common_pid:onmatch(p.e).trace(x,nope)";
	CHECK(parse(s, &t, &err) == 0);
	CHECK(ut_evtrig_check(&t, &fmt, s, &err) == -EINVAL);
	CHECK_EQ_STR(err.msg, "Couldn't find param");
	s = "hist:keys=lineno:v=bogus";
	CHECK(parse(s, &t, &err) == 0);
	CHECK(ut_evtrig_check(&t, &fmt, s, &err) == -EINVAL);
	CHECK_EQ_STR(err.msg, "Couldn't find field");
	CHECK_EQ_INT(ut_hist_field_slot(&fmt, "lineno"), 2);
	CHECK_EQ_INT(ut_hist_field_slot(&fmt, "common_pid"), UT_HIST_SLOT_PID);
}

static void synth_bad(const char *s, const char *msg, size_t pos)
{
	struct ut_synth_def d;
	struct ut_synth_err err = {0};
	bool rm;

	if (ut_synth_parse(s, strlen(s), &d, &rm, &err) != -EINVAL || strcmp(err.msg, msg) != 0 ||
	    err.pos != pos) {
		fprintf(stderr, "'%s': %s at %zu\n", s, err.msg ? err.msg : "accepted", err.pos);
		CHECK(0);
	}
}

TEST(synth)
{
	struct ut_synth_def d, e;
	struct ut_synth_err err;
	struct ut_evfmt f;
	char buf[256];
	bool rm;
	const char *s = "wakeup_latency  u64 lat; pid_t pid; unsigned int n\n";

	CHECK(ut_synth_parse(s, strlen(s), &d, &rm, &err) == 0 && !rm);
	CHECK_EQ_STR(d.name, "wakeup_latency");
	CHECK_EQ_INT(d.nfields, 3);
	CHECK_EQ_STR(d.type[2], "unsigned int");
	CHECK_EQ_INT(d.size[1], 4);
	CHECK_EQ_INT(d.is_signed[1], 1);
	CHECK_EQ_INT(d.is_signed[2], 0);
	ut_synth_print(&d, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "wakeup_latency\tu64 lat; pid_t pid; unsigned int n");
	ut_synth_evfmt(&d, &f);
	CHECK_EQ_STR(f.system, "synthetic");
	CHECK_EQ_STR(f.argname[0], "lat");
	CHECK(ut_synth_parse("!wakeup_latency", 15, &d, &rm, &err) == 0 && rm);
	CHECK(ut_synth_find("a u64 x\nb s32 y\n", "b", &d) && d.is_signed[0]);
	CHECK(!ut_synth_find("a u64 x\n", "c", &d));
	CHECK(ut_synth_pc("a") != ut_synth_pc("b"));
	CHECK((ut_synth_pc("a") & ~UT_SYNTH_PC_MASK) == UT_SYNTH_PC_BASE);
	synth_bad("lat", "Command must be of the form: <name> field[;field] ...", 0);
	synth_bad("9lat u64 x", "Illegal name", 0);
	synth_bad("lat u64 9x", "Illegal name", 8);
	synth_bad("lat u65 x", "Invalid type", 4);
	synth_bad("lat unsigned x", "Incomplete type", 4);
	synth_bad("lat u64", "Command must be of the form: <name> field[;field] ...", 0);
	synth_bad("lat u64 x; u64", "Invalid field", 4); /* err_pos(): the first "u64" */
	synth_bad("lat u64 x[4]", "Invalid type", 4);
	/* the kernel's own cases (trigger-synthetic_event_syntax_errors.tc) */
	synth_bad("myevent chr arg", "Invalid type", 8);
	synth_bad("myevent unsigned arg", "Incomplete type", 8);
	synth_bad("myevent char str]; int v", "Illegal name", 13);
	synth_bad("mye-vent char str[]", "Illegal name", 0);
	synth_bad("myevent char st-r[]", "Illegal name", 13);
	synth_bad("myevent char str;[]", "Invalid field", 17);
	synth_bad("myevent char str; int", "Invalid field", 18);
	synth_bad("myevent char str[; int v", "Invalid array specification", 13);
	synth_bad("myevent char str[kdjdk]", "Invalid array specification", 13);
	synth_bad("myevent char str[257]", "Invalid array specification", 13);
	synth_bad("mye;vent char str[]", "Command must be of the form: <name> field[;field] ...", 0);
	synth_bad("myevent ; char str[]", "Command must be of the form: <name> field[;field] ...", 0);
	synth_bad("; char str[]", "Command must be of the form: <name> field[;field] ...", 0);
	synth_bad("myevent", "Command must be of the form: <name> field[;field] ...", 0);
	/* the old format: fields without ';', and strings */
	s = "wakeup_latency  u64 lat pid_t pid char comm[16]";
	CHECK(ut_synth_parse(s, strlen(s), &d, &rm, &err) == 0 && !rm);
	CHECK_EQ_INT(d.nfields, 3);
	ut_synth_print(&d, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "wakeup_latency\tu64 lat; pid_t pid; char[16] comm");
	s = "myevent u64 lat; char name[]";
	CHECK(ut_synth_parse(s, strlen(s), &d, &rm, &err) == 0 && d.nfields == 2);
	CHECK_EQ_STR(d.type[1], "char[]");
	synth_bad("wakeup_latency  u64 lat pid_t pid char", "Invalid field", 34);
	CHECK(ut_synth_parse("s u64 lat; char c[16]; char n[]", 31, &d, &rm, &err) == 0);
	CHECK(d.nfields == 3 && d.is_string[1] && d.strsize[1] == 16 && d.is_string[2] &&
	      !d.strsize[2] && !d.is_string[0]);
	ut_synth_print(&d, buf, sizeof(buf));
	CHECK_EQ_STR(buf, "s\tu64 lat; char[16] c; char[] n");
	/* the listing reads back: the array on the type, as the kernel takes it */
	CHECK(ut_synth_parse("s u64 lat; char[16] c; char[] n", 31, &e, &rm, &err) == 0);
	CHECK(e.nfields == 3 && e.is_string[1] && e.strsize[1] == 16 && e.is_string[2] &&
	      !e.strsize[2] && !strcmp(e.type[1], "char[16]") && !strcmp(e.field[1], "c"));
	synth_bad("s char[300] c", "Invalid array specification", 2);
	synth_bad("s char[5] c[5]", "Invalid type", 2);
}

/* Where an entry's strings go: the kernel's key sizes, then variables and saved strings. */
TEST(strings)
{
	/* a char[16] (comm), a __data_loc string (name), a number */
	struct ut_evfmt fmt = {.nargs = 3,
			       .size = {8, 8, 4},
			       .argname = {"comm", "name", "n"},
			       .is_string = {1, 1, 0},
			       .strsize = {16, 0, 0}};
	struct ut_evtrig t;
	struct ut_evtrig_err err;
	struct ut_hist_strs l;
	const char *s = "hist:keys=comm,n,name:v=name:onmax($v).save(n,comm)";

	CHECK(parse(s, &t, &err) == 0);
	ut_hist_strs_layout(&t, &fmt, &l);
	CHECK(l.key_size[0] == 16 && l.key_off[0] == 0 && l.key_size[1] == 0);
	CHECK(l.key_size[2] == 256 && l.key_off[2] == 16 && l.keys == 272);
	CHECK(l.key_bytes == 16 + 8 + 256);
	CHECK(l.var_size[0] == 256 && l.var_off[0] == 272);
	CHECK(l.save_size[0] == 0 && l.save_size[1] == 256 && l.save_off[1] == 528);
	CHECK_EQ_INT(l.size, 784);
	CHECK(ut_evtrig_check(&t, &fmt, s, &err) == 0);
	s = "hist:keys=name,comm,n";
	CHECK(parse(s, &t, &err) == 0);
	CHECK(ut_evtrig_check(&t, &fmt, s, &err) == 0); /* 256 + 16 + 8: fits 384 */
	s = "hist:keys=name,arg2";
	CHECK(parse(s, &t, &err) == 0);
	CHECK(ut_evtrig_check(&t, &fmt, s, &err) == -EINVAL); /* 512: the kernel's EINVAL */
	CHECK(!err.logged);
	ut_hist_strs_layout(&t, NULL, &l); /* no format: numbers only */
	CHECK_EQ_INT(l.size, 0);
	CHECK_EQ_INT(ut_evtrig_filter_strings("name ~ \"a*\" && n > 1", &fmt), 2);
	CHECK_EQ_INT(ut_evtrig_filter_strings("comm == \"x\" || arg2 == \"y\"", &fmt), 3);
	CHECK_EQ_INT(ut_evtrig_filter_strings("n == 1 && names == 2", &fmt), 0);
}

int main(void)
{
	RUN(variables);
	RUN(expressions);
	RUN(expression_errors);
	RUN(actions);
	RUN(errors);
	RUN(check);
	RUN(synth);
	RUN(strings);
	TEST_EXIT();
}
