// SPDX-License-Identifier: MIT
/* Event filters (common/evfilter.c, evfilter_parse.c): the kernel's grammar, errors and positions. */
#include <stdlib.h>
#include <string.h>

#include "common/evfilter.h"
#include "ut_test.h"

/* The sample's two uprobe events in one: a (s64), b (u32), name (__data_loc char[]), times. */
static const struct ut_evf_field fields[] = {
	{"a", 8, 8, 1, UT_EVF_NUM},
	{"b", 16, 4, 0, UT_EVF_NUM},
	{"name", 20, 4, 0, UT_EVF_STRLOC},
	{"tag", 24, 8, 0, UT_EVF_STRFIX},
};

struct rec {
	uint8_t b[64];
	size_t len;
};

static struct rec mk(int pid, long long a, unsigned b, const char *name, const char *tag)
{
	struct rec r;
	size_t n = strlen(name) + 1;
	uint32_t loc = (uint32_t)(32 | n << 16);

	memset(&r, 0, sizeof(r));
	memcpy(r.b + 4, &pid, 4);
	memcpy(r.b + 8, &a, 8);
	memcpy(r.b + 16, &b, 4);
	memcpy(r.b + 20, &loc, 4);
	strncpy((char *)r.b + 24, tag, 8);
	memcpy(r.b + 32, name, n);
	r.len = 32 + n;
	return r;
}

/* Whether @filter passes the record, through the encoded word as the runtime gets it. */
static int pass(const char *filter, const struct rec *r)
{
	struct ut_evf *f = NULL, *g = NULL;
	struct ut_evf_error e;
	struct ut_evf_ctx ctx = {.cpu = 1, .comm = "target"};
	char *w;
	int m;

	if (ut_evf_parse(filter, fields, 4, &f, &e))
		return -1;
	w = ut_evf_encode(f);
	CHECK(w && ut_evf_decode(w, strlen(w), &g) == 0);
	m = ut_evf_match(f, r->b, r->len, &ctx);
	CHECK_EQ_INT(ut_evf_match(g, r->b, r->len, &ctx), m);
	free(w);
	ut_evf_free(f);
	ut_evf_free(g);
	return m;
}

TEST(numbers)
{
	struct rec r = mk(100, 2, 20, "world", "tagged");

	CHECK_EQ_INT(pass("a > 1", &r), 1);
	CHECK_EQ_INT(pass("a > 2", &r), 0);
	CHECK_EQ_INT(pass("a >= 1 && b < 30", &r), 1);
	CHECK_EQ_INT(pass("a >= 1 && b < 20", &r), 0);
	CHECK_EQ_INT(pass("a <= 2", &r), 1);
	CHECK_EQ_INT(pass("a < 2", &r), 0);
	CHECK_EQ_INT(pass("a == 2", &r), 1);
	CHECK_EQ_INT(pass("a != 2", &r), 0);
	CHECK_EQ_INT(pass("a & 1", &r), 0);
	CHECK_EQ_INT(pass("a & 3", &r), 1);
	CHECK_EQ_INT(pass("b == 0x14", &r), 1);
	CHECK_EQ_INT(pass("a > -1", &r), 1);
	CHECK_EQ_INT(pass("(a == 0 || a == 2) && !(b == 0)", &r), 1);
	CHECK_EQ_INT(pass("(a == 0 || a == 3) && !(b == 0)", &r), 0);
	CHECK_EQ_INT(pass("a == 0 || a == 2 && b == 20", &r), 1);
	CHECK_EQ_INT(pass("a == 2 || a == 0 && b == 0", &r), 1);
	CHECK_EQ_INT(pass("(a == 2 || a == 0) && b == 0", &r), 0);
	CHECK_EQ_INT(pass("!!(a == 2)", &r), 1);
	CHECK_EQ_INT(pass("!a == 2", &r), 0);
	CHECK_EQ_INT(pass("common_pid > 0 && CPU < 64", &r), 1);
	CHECK_EQ_INT(pass("common_pid == 100 && cpu == 1", &r), 1);
	CHECK_EQ_INT(pass("a > 1 &&", &r), 1); /* the kernel's trailing && */
	r = mk(100, -5, 20, "world", "x");
	CHECK_EQ_INT(pass("a < 0", &r), 1);
	CHECK_EQ_INT(pass("a == -5", &r), 1);
}

TEST(strings)
{
	struct rec r = mk(100, 2, 20, "world", "tagged12");

	CHECK_EQ_INT(pass("name == \"world\"", &r), 1);
	CHECK_EQ_INT(pass("name == \"wor*\"", &r), 0);
	CHECK_EQ_INT(pass("name != \"world\"", &r), 0);
	CHECK_EQ_INT(pass("name ~ \"w*\"", &r), 1);
	CHECK_EQ_INT(pass("name ~ \"f*\"", &r), 0);
	CHECK_EQ_INT(pass("name ~ \"*or*\"", &r), 1);
	CHECK_EQ_INT(pass("name ~ \"*ld\"", &r), 1);
	CHECK_EQ_INT(pass("name ~ \"w?r[a-m]d\"", &r), 1);
	CHECK_EQ_INT(pass("name ~ \"w*r[!l]d\"", &r), 0);
	CHECK_EQ_INT(pass("name ~ \"!w*\"", &r), 0);
	CHECK_EQ_INT(pass("name ~ '*'", &r), 1);
	CHECK_EQ_INT(pass("tag == \"tagged12\"", &r), 1); /* char[8], no NUL */
	CHECK_EQ_INT(pass("tag ~ \"tag*\"", &r), 1);
	CHECK_EQ_INT(pass("comm == \"target\"", &r), 1);
	CHECK_EQ_INT(pass("COMM != \"target\"", &r), 0);
	CHECK_EQ_INT(pass("name != \"world\" && a > 0", &r), 0);
}

/* The filter file's text after @filter fails, and the error_log position. */
static void err(const char *filter, const char *file, int pos)
{
	struct ut_evf *f = NULL;
	struct ut_evf_error e;
	char buf[512];

	CHECK(ut_evf_parse(filter, fields, 4, &f, &e) < 0);
	CHECK(f == NULL);
	ut_evf_error_file(buf, sizeof(buf), filter, &e);
	CHECK_EQ_STR(buf, file);
	CHECK_EQ_INT(e.pos, pos);
}

TEST(errors_as_the_kernel)
{
	/* sample 34_event_filters.txt */
	err("a >", "a >\n   ^\nparse_error: Invalid value (did you forget quotes)?\n\n", 4);
	err("nosuchfield == 1", "nosuchfield == 1\n            ^\nparse_error: Field not found\n\n",
	    12);
	err("a == \"str\"", "a == \"str\"\n      ^\nparse_error: Expecting numeric field\n\n", 6);
	err("name > 3", "name > 3\n        ^\nparse_error: Expecting string field\n\n", 8);
	err("(a > 1", "(a > 1\n^\nparse_error: Too many '('\n\n", 0);
	err("a > 1)", "a > 1)\n     ^\nparse_error: Too few '('\n\n", 5);
	err("a $ 1", "a $ 1\n   ^\nparse_error: Invalid operator\n\n", 3);
	err("name > \"x\"", "name > \"x\"\n        ^\nparse_error: Illegal operation for field type\n\n", 8);
	err("a ~ 3", "a ~ 3\n     ^\nparse_error: Illegal operation for field type\n\n", 5);
	err("b == -1", "b == -1\n      ^\nparse_error: Illegal integer value\n\n", 6);
	err("a == 1x", "a == 1x\n      ^\nparse_error: Illegal integer value\n\n", 6);
	err("name == \"x", "name == \"x\n        ^\nparse_error: Missing matching quote\n\n", 8);
	err("a == 1 b == 2", "a == 1 b == 2\n       ^\nparse_error: Too many terms in predicate expression\n\n", 7);
	err("((a > 1) && (b < 2)", "((a > 1) && (b < 2)\n^\nparse_error: Too many '('\n\n", 0);
	err("a > 1 && ((b < 2)", "a > 1 && ((b < 2)\n         ^\nparse_error: Too many '('\n\n", 9);
}

TEST(decode_refuses_junk)
{
	struct ut_evf *f = NULL;

	CHECK(ut_evf_decode("", 0, &f) < 0);
	CHECK(ut_evf_decode("evf1", 4, &f) < 0);
	CHECK(ut_evf_decode("evf1;2,0,0,0,0,0,0,0,0,", 23, &f) < 0); /* AND of nothing */
	CHECK(ut_evf_decode("evf1;1,1,0,3,0,0,0,8,1,", 23, &f) < 0); /* a 3-byte number */
	CHECK(ut_evf_decode("evf1;1,1,0,4,0,0,0,8,1,", 23, &f) == 0);
	ut_evf_free(f);
	CHECK(ut_evf_is_clear(" 0\n"));
	CHECK(!ut_evf_is_clear("00"));
}

int main(void)
{
	RUN(numbers);
	RUN(strings);
	RUN(errors_as_the_kernel);
	RUN(decode_refuses_junk);
	TEST_EXIT();
}
