// SPDX-License-Identifier: MIT
/*
 * The configuration document (common/config.c): what `utrace record` hands
 * its programs (every option, "lenient", "follow") survives format and
 * parse; bad values are refused with a message.
 */
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/names.h"
#include "ut_test.h"

TEST(record_document_round_trip)
{
	struct ut_cfg c, back;
	char err[128];
	char *text;

	ut_cfg_init(&c);
	c.tracer = UT_TRACER_FUNCTION_GRAPH;
	c.clock = UT_CLOCK_MONO;
	c.buf_kb = 64;
	c.overwrite = false;
	c.func_stack = true;
	c.profile = true;
	c.sleep_time = false;
	c.lenient = true;
	c.follow = true;
	c.lossless = true;
	c.max_graph_depth = 3;
	c.thresh_us = 5;
	CHECK(ut_cfg_set_words(&c.filter, "s_* !s_noise", false) == 0);
	CHECK(ut_cfg_set_words(&c.notrace, "s_leaf", false) == 0);
	CHECK(ut_cfg_set_words(&c.graph_function, "main", false) == 0);
	CHECK(ut_cfg_set_words(&c.graph_notrace, "s_junk", false) == 0);
	text = ut_cfg_format(&c);
	CHECK(text != NULL);
	CHECK(strstr(text, "\nfollow 1\n") != NULL);
	CHECK(strstr(text, "\nlenient 1\n") != NULL);
	CHECK(strstr(text, "\nlossless 1\n") != NULL);
	CHECK_EQ_INT(ut_cfg_parse(&back, text, strlen(text), err, sizeof(err)), 0);
	CHECK_EQ_INT(back.tracer, UT_TRACER_FUNCTION_GRAPH);
	CHECK_EQ_INT(back.clock, UT_CLOCK_MONO);
	CHECK_EQ_INT(back.buf_kb, 64);
	CHECK(!back.overwrite && back.func_stack && back.profile && !back.sleep_time);
	CHECK(back.lenient && back.follow && back.lossless);
	CHECK_EQ_INT(back.max_graph_depth, 3);
	CHECK_EQ_INT((int)back.thresh_us, 5);
	CHECK_EQ_STR(back.filter, "s_* !s_noise");
	CHECK_EQ_STR(back.notrace, "s_leaf");
	CHECK_EQ_STR(back.graph_function, "main");
	CHECK_EQ_STR(back.graph_notrace, "s_junk");
	free(text);
	ut_cfg_free(&back);
	ut_cfg_free(&c);
}

/* Event triggers: one line each, kept in order, copied with the document. */
TEST(trigger_lines)
{
	struct ut_cfg c, back, dup;
	char err[128];
	char *text;

	ut_cfg_init(&c);
	CHECK(ut_cfg_add_trigger(&c, "utest:pair traceoff:2 if arg1 > 1") == 0);
	CHECK(ut_cfg_add_trigger(&c, "utest:konst hist:keys=arg1.log2:vals=hitcount:sort=arg1:size=2048\nignored") == 0);
	CHECK_EQ_STR(c.triggers, "utest:pair traceoff:2 if arg1 > 1\n"
				 "utest:konst hist:keys=arg1.log2:vals=hitcount:sort=arg1:size=2048\n");
	text = ut_cfg_format(&c);
	CHECK(text != NULL);
	CHECK(strstr(text, "\ntrigger utest:pair traceoff:2 if arg1 > 1\ntrigger utest:konst ") != NULL);
	CHECK_EQ_INT(ut_cfg_parse(&back, text, strlen(text), err, sizeof(err)), 0);
	CHECK_EQ_STR(back.triggers, c.triggers);
	CHECK_EQ_INT(ut_cfg_copy(&dup, &back), 0);
	CHECK_EQ_STR(dup.triggers, c.triggers);
	free(text);
	ut_cfg_free(&dup);
	ut_cfg_free(&back);
	ut_cfg_free(&c);
}

TEST(follow_default_and_bad)
{
	struct ut_cfg c;
	char err[128];
	char *text;

	/* `utrace start`'s template: nothing followed, and it says nothing */
	ut_cfg_init(&c);
	text = ut_cfg_format(&c);
	CHECK(text != NULL && strstr(text, "follow") == NULL);
	/* nor lossless: its processes drop when full, as the kernel's */
	CHECK(strstr(text, "lossless") == NULL);
	free(text);
	CHECK_EQ_INT(ut_cfg_parse(&c, "tracer function\n", 16, err, sizeof(err)), 0);
	CHECK(!c.follow);
	CHECK_EQ_INT(ut_cfg_parse(&c, "follow 0\n", 9, err, sizeof(err)), 0);
	CHECK(!c.follow);
	CHECK_EQ_INT(ut_cfg_parse(&c, "follow 2\n", 9, err, sizeof(err)), -22);
	CHECK_EQ_STR(err, "bad follow '2'");
	CHECK(!c.follow);
	CHECK_EQ_INT(ut_cfg_parse(&c, "follow\n", 7, err, sizeof(err)), -22);
	CHECK_EQ_STR(err, "bad follow ''");
}

int main(void)
{
	RUN(record_document_round_trip);
	RUN(trigger_lines);
	RUN(follow_default_and_bad);
	TEST_EXIT();
}
