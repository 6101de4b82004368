// SPDX-License-Identifier: MIT
/*
 * USDT descriptions (common/usdt_desc.c's lines) and the formats of
 * described events (common/usdt_events.c): names, __data_loc strings,
 * the text read back, the printed event with a string and a (fault).
 */
#include <stdlib.h>
#include <string.h>

#include "common/usdt_desc.h"
#include "common/usdt_events.h"
#include "ut_test.h"

TEST(description_lines)
{
	char ev[160], names[UT_USDT_MAX_ARGS][UT_USDT_NAME_MAX];
	unsigned char str[UT_USDT_MAX_ARGS];

	CHECK_EQ_INT(ut_usdt_desc_line("python:function__entry filename:string funcname:string "
				       "lineno\n", ev, sizeof(ev), names, str), 3);
	CHECK_EQ_STR(ev, "python:function__entry");
	CHECK_EQ_STR(names[0], "filename");
	CHECK_EQ_INT(str[0], 1);
	CHECK_EQ_STR(names[2], "lineno");
	CHECK_EQ_INT(str[2], 0);
	CHECK_EQ_INT(ut_usdt_desc_line("  p:x - b:string", ev, sizeof(ev), names, str), 2);
	CHECK_EQ_STR(names[0], "");
	CHECK_EQ_INT(str[1], 1);
	CHECK_EQ_INT(ut_usdt_desc_line("p:x", ev, sizeof(ev), names, str), 0);
	CHECK_EQ_INT(ut_usdt_desc_line("# p:x a", ev, sizeof(ev), names, str), -1);
	CHECK_EQ_INT(ut_usdt_desc_line("", ev, sizeof(ev), names, str), -1);
	CHECK_EQ_INT(ut_usdt_desc_line("noprovider a", ev, sizeof(ev), names, str), -1);
	CHECK_EQ_INT(ut_usdt_desc_line("p:x a:int", ev, sizeof(ev), names, str), -1);
	CHECK_EQ_INT(ut_usdt_desc_line("p:x 1a", ev, sizeof(ev), names, str), -1);
	CHECK_EQ_INT(ut_usdt_desc_line("p:x a-b", ev, sizeof(ev), names, str), -1);
	CHECK_EQ_INT(ut_usdt_desc_line("p:x a b c d e f g h i j k l m", ev, sizeof(ev), names, str),
		     -1);
}

static struct ut_evfmt described(void)
{
	struct ut_evfmt f;

	memset(&f, 0, sizeof(f));
	strcpy(f.system, "python");
	strcpy(f.name, "function__entry");
	f.id = 1100;
	f.nargs = 3;
	f.size[0] = f.size[1] = 8;
	f.size[2] = 4;
	f.is_signed[2] = 1;
	f.is_string[0] = f.is_string[1] = 1;
	strcpy(f.argname[0], "filename");
	strcpy(f.argname[1], "funcname");
	return f;
}

TEST(format_with_strings)
{
	struct ut_evfmt f = described(), g;
	char *text = ut_evfmt_text(&f);

	CHECK(text != NULL);
	CHECK(strstr(text, "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:1;\n"));
	CHECK(strstr(text, "\tfield:__data_loc char[] funcname;\toffset:16;\tsize:4;\tsigned:1;\n"));
	CHECK(strstr(text, "\tfield:s32 arg3;\toffset:24;\tsize:4;\tsigned:1;\n"));
	CHECK(strstr(text, "print fmt: \"filename=\\\"%s\\\" funcname=\\\"%s\\\" arg3=%d\", "
			   "__get_str(filename), __get_str(funcname), REC->arg3\n"));
	CHECK_EQ_INT(ut_evfmt_parse(&g, "python", text), 0);
	CHECK_EQ_INT(g.nargs, 3);
	CHECK_EQ_INT(g.is_string[0], 1);
	CHECK_EQ_INT(g.is_string[2], 0);
	CHECK_EQ_STR(g.argname[1], "funcname");
	CHECK_EQ_STR(g.argname[2], "");
	CHECK_EQ_INT(g.size[2], 4);
	free(text);
}

TEST(printed)
{
	struct ut_evfmt f = described();
	uint64_t rec[8] = {0};
	char buf[256];

	/* slots at 8, 16, 24 of the event; strings from 32 */
	memcpy((char *)rec + 24, "t.py", 5);
	memcpy((char *)rec + 29, "foo", 4);
	rec[0] = (uint64_t)5 << 16 | 32;
	rec[1] = (uint64_t)4 << 16 | 37;
	rec[2] = (uint64_t)-3;
	ut_evfmt_print(buf, sizeof(buf), &f, rec, 24 + 9);
	CHECK_EQ_STR(buf, "filename=\"t.py\" funcname=\"foo\" arg3=-3");
	rec[1] = 0; /* the pointer could not be read */
	ut_evfmt_print(buf, sizeof(buf), &f, rec, 24 + 9);
	CHECK_EQ_STR(buf, "filename=\"t.py\" funcname=(fault) arg3=-3");
	rec[0] = (uint64_t)200 << 16 | 32; /* beyond the event */
	ut_evfmt_print(buf, sizeof(buf), &f, rec, 24 + 9);
	CHECK_EQ_STR(buf, "filename=(fault) funcname=(fault) arg3=-3");
}

TEST(filter_fields)
{
	struct ut_evfmt f = described();
	struct ut_evf_field v[UT_USDT_MAX_ARGS];

	CHECK_EQ_INT((int)ut_evfmt_fields(&f, v), 3);
	CHECK_EQ_STR(v[1].name, "funcname");
	CHECK_EQ_INT(v[1].kind, UT_EVF_STRLOC);
	CHECK_EQ_INT(v[1].offset, 16);
	CHECK_EQ_INT(v[1].size, 4);
	CHECK_EQ_STR(v[2].name, "arg3");
	CHECK_EQ_INT(v[2].kind, UT_EVF_NUM);
}

int main(void)
{
	RUN(description_lines);
	RUN(format_with_strings);
	RUN(printed);
	RUN(filter_fields);
	TEST_EXIT();
}
