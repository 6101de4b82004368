// SPDX-License-Identifier: MIT
/* Process events (common/procevents.c): formats, ids, words, the printed text of sound and broken records. */
#include <stdlib.h>
#include <string.h>

#include "common/procev_fields.h"
#include "common/procevents.h"
#include "ut_test.h"

/* A sched_process_fork record: common fields, then the kernel's layout with both strings. */
static size_t fork_record(uint8_t *r, uint32_t comm_loc)
{
	uint32_t child_loc = (4u << 16) | 29;
	int32_t ppid = 10, cpid = 11;

	memset(r, 0, 64);
	memcpy(r + 8, &comm_loc, 4);
	memcpy(r + 12, &ppid, 4);
	memcpy(r + 16, &child_loc, 4);
	memcpy(r + 20, &cpid, 4);
	memcpy(r + 24, "prog", 5);
	memcpy(r + 29, "kid", 4);
	return 33;
}

TEST(formats)
{
	const struct ut_procev *e = ut_procev_find("sched", "sched_process_exec");
	char *text;

	CHECK(e != NULL);
	CHECK_EQ_INT(e->id, UT_PEV_EXEC);
	CHECK(ut_procev_by_id(UT_PEV_EXEC) == e);
	CHECK(ut_procev_find("sched", "sched_process_free") != NULL);
	CHECK(ut_procev_find("sched", "sched_switch") == NULL);
	text = ut_procev_format(e);
	CHECK(text != NULL);
	CHECK(strstr(text, "name: sched_process_exec\nID: 1011\nformat:\n") == text);
	CHECK(strstr(text, "\n\n\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"));
	CHECK(strstr(text, "\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\nprint fmt: "));
	free(text);
}

TEST(words)
{
	CHECK(ut_procev_word_matches("sched:*", 7));
	CHECK(ut_procev_word_matches("signal_generate", 15));
	CHECK(ut_procev_word_matches("utrace", 6));
	CHECK(!ut_procev_word_matches("sched:nosuch", 12));
	CHECK(!ut_procev_word_matches("ftrace:print", 12)); /* always on: not a set_event word */
}

TEST(print)
{
	const struct ut_procev *e = ut_procev_by_id(UT_PEV_FORK);
	uint8_t r[64];
	char buf[256];
	size_t len = fork_record(r, (5u << 16) | 24);

	ut_procev_print(buf, sizeof(buf), e, r, len);
	CHECK_EQ_STR(buf, "comm=prog pid=10 child_comm=kid child_pid=11");
	/* a string past the record, one without its NUL, a record cut short */
	fork_record(r, (40u << 16) | 24);
	ut_procev_print(buf, sizeof(buf), e, r, len);
	CHECK_EQ_STR(buf, "comm=(fault) pid=10 child_comm=kid child_pid=11");
	fork_record(r, (4u << 16) | 24);
	ut_procev_print(buf, sizeof(buf), e, r, len);
	CHECK_EQ_STR(buf, "comm=(fault) pid=10 child_comm=kid child_pid=11");
	fork_record(r, (5u << 16) | 24);
	ut_procev_print(buf, sizeof(buf), e, r, 14);
	CHECK_EQ_STR(buf, "comm=(fault) pid=0 child_comm=(fault) child_pid=0");
}

/* common/procev_fields.c: a process event's fields as the triggers' named slots. */
TEST(trigger_fields)
{
	const struct ut_procev *e = ut_procev_find("sched", "sched_process_fork");
	struct ut_evfmt f;
	uint8_t rec[24] = {0};
	uint64_t slots[UT_USDT_MAX_ARGS];
	int32_t parent = 10, child = -3;

	CHECK(e && ut_procev_evfmt(e, &f));
	CHECK_EQ_INT(f.nargs, 4);
	CHECK_EQ_STR(f.argname[0], "parent_comm");
	CHECK_EQ_STR(f.argname[3], "child_pid");
	CHECK(f.size[1] == 4 && f.is_signed[1] && !f.is_signed[0]);
	memcpy(rec + 12, &parent, 4);
	memcpy(rec + 20, &child, 4);
	CHECK_EQ_INT(ut_procev_slots(e, rec, sizeof(rec), slots), 4);
	CHECK(slots[1] == 10 && slots[3] == (uint64_t)-3 && slots[0] == 0);
	CHECK(f.is_string[0] && !f.strsize[0] && !f.is_string[1]); /* __data_loc parent_comm */
	/* a __data_loc string: its slot the address of its text in the record */
	{
		uint8_t r2[32] = {0};
		uint32_t loc = 3u << 16 | 24;

		memcpy(r2 + 8, &loc, 4);
		memcpy(r2 + 24, "sh", 3);
		CHECK_EQ_INT(ut_procev_slots(e, r2, sizeof(r2), slots), 4);
		CHECK(slots[0] == (uint64_t)(uintptr_t)(r2 + 24) && slots[2] == 0);
		CHECK_EQ_INT(ut_procev_slots(e, r2, 26, slots), 4); /* its NUL outside: none */
		CHECK(slots[0] == 0);
	}
	CHECK_EQ_INT(ut_procev_slots(e, rec, 16, slots), 4); /* short: what is out reads 0 */
	CHECK(slots[3] == 0);
	CHECK(!ut_procev_evfmt_named("ftrace", "print", &f));
	CHECK(ut_procev_evfmt_named("sched", "sched_process_exit", &f));
	CHECK_EQ_STR(f.argname[0], "comm");
	CHECK(f.is_string[0] && f.strsize[0] == 16); /* char comm[16] */
}

int main(void)
{
	RUN(formats);
	RUN(words);
	RUN(print);
	RUN(trigger_fields);
	TEST_EXIT();
}
