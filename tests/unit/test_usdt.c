// SPDX-License-Identifier: MIT
/* USDT argument descriptions (common/usdt.c, arch/x86_64/usdt_args.c). */
#include <errno.h>

#include "common/usdt.h"
#include "ut_test.h"

static struct ut_usdt_arg one(const char *spec)
{
	struct ut_usdt_arg a;
	char why[96] = "";

	if (ut_usdt_parse_arg(spec, strlen(spec), &a, why, sizeof(why))) {
		fprintf(stderr, "%s: %s\n", spec, why);
		exit(1);
	}
	return a;
}

static const char *bad(const char *spec)
{
	static char why[96];
	struct ut_usdt_arg a;

	why[0] = '\0';
	CHECK_EQ_INT(ut_usdt_parse_arg(spec, strlen(spec), &a, why, sizeof(why)), -EINVAL);
	CHECK(why[0]);
	return why;
}

TEST(registers)
{
	struct ut_usdt_arg a = one("-4@%edi");

	CHECK_EQ_INT(a.loc, UT_USDT_REG);
	CHECK_EQ_INT(a.size, 4);
	CHECK_EQ_INT(a.is_signed, 1);
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "rdi");
	CHECK_EQ_INT(a.reg_size, 4);
	CHECK_EQ_STR(ut_usdt_type_name(&a), "s32");
	a = one("8@%rax");
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "rax");
	CHECK_EQ_INT(a.is_signed, 0);
	CHECK_EQ_STR(ut_usdt_type_name(&a), "u64");
	a = one("1@%ah");
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "rax");
	CHECK_EQ_INT(a.reg_shift, 8);
	CHECK_EQ_INT(a.reg_size, 1);
	a = one("-1@%sil");
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "rsi");
	CHECK_EQ_STR(ut_usdt_type_name(&a), "s8");
	a = one("2@%r9w");
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "r9");
	CHECK_EQ_INT(a.reg_size, 2);
	a = one("4@%r15d");
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "r15");
	a = one("1@%r8b");
	CHECK_EQ_INT(a.reg_size, 1);
	a = one("%ecx"); /* an old note: no size, the register's */
	CHECK_EQ_INT(a.size, 4);
}

TEST(constants)
{
	struct ut_usdt_arg a = one("4@$5");

	CHECK_EQ_INT(a.loc, UT_USDT_CONST);
	CHECK_EQ_INT(a.val, 5);
	a = one("-8@$-1");
	CHECK_EQ_INT(a.val, -1);
	CHECK_EQ_INT(a.is_signed, 1);
	a = one("8@$0x10");
	CHECK_EQ_INT(a.val, 16);
	a = one("8@$table");
	CHECK_EQ_INT(a.loc, UT_USDT_SYMADDR);
	CHECK_EQ_STR(a.sym, "table");
}

TEST(memory)
{
	struct ut_usdt_arg a = one("8@-16(%rbp)");

	CHECK_EQ_INT(a.loc, UT_USDT_MEM);
	CHECK_EQ_INT(a.val, -16);
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "rbp");
	CHECK_EQ_INT(a.index, UT_USDT_NO_REG);
	a = one("-4@(%rax)");
	CHECK_EQ_INT(a.val, 0);
	CHECK_EQ_STR(ut_usdt_reg_name(a.reg), "rax");
	a = one("-4@8(%rax,%rdx,4)");
	CHECK_EQ_INT(a.val, 8);
	CHECK_EQ_STR(ut_usdt_reg_name(a.index), "rdx");
	CHECK_EQ_INT(a.scale, 4);
	a = one("2@0x18(,%rcx,8)");
	CHECK_EQ_INT(a.reg, UT_USDT_NO_REG);
	CHECK_EQ_STR(ut_usdt_reg_name(a.index), "rcx");
	CHECK_EQ_INT(a.val, 24);
	a = one("8@(%r12,%r13)");
	CHECK_EQ_INT(a.scale, 1);
	a = one("8@foo(%rip)");
	CHECK_EQ_INT(a.loc, UT_USDT_STATIC);
	CHECK_EQ_STR(a.sym, "foo");
	CHECK_EQ_INT(a.reg, UT_USDT_NO_REG);
	a = one("-4@counts+8(%rip)");
	CHECK_EQ_STR(a.sym, "counts");
	CHECK_EQ_INT(a.val, 8);
	a = one("4@_ZN2ns1xE.lto_priv.0-4(%rip)");
	CHECK_EQ_STR(a.sym, "_ZN2ns1xE.lto_priv.0");
	CHECK_EQ_INT(a.val, -4);
	a = one("8@0x601040");
	CHECK_EQ_INT(a.loc, UT_USDT_MEM);
	CHECK_EQ_INT(a.val, 0x601040);
}

TEST(bad_input)
{
	CHECK_EQ_STR(bad("3@%eax"), "bad size 3");
	CHECK_EQ_STR(bad("16@%eax"), "bad size 16");
	CHECK_EQ_STR(bad("x@%eax"), "bad size");
	CHECK_EQ_STR(bad("@%eax"), "bad size");
	CHECK_EQ_STR(bad("4@"), "empty operand");
	CHECK_EQ_STR(bad("4@%xmm0"), "unknown register");
	CHECK_EQ_STR(bad("4@%rip"), "unknown register");
	CHECK_EQ_STR(bad("4@%eaxx"), "unknown register");
	CHECK_EQ_STR(bad("4@%r16d"), "unknown register");
	CHECK_EQ_STR(bad("4@$"), "bad constant");
	CHECK_EQ_STR(bad("4@$5x"), "unexpected text after the constant");
	CHECK_EQ_STR(bad("4@8(%rax"), "expected ')'");
	CHECK_EQ_STR(bad("4@8(%eax)"), "bad base register");
	CHECK_EQ_STR(bad("4@8(%rax,%rip)"), "bad index register");
	CHECK_EQ_STR(bad("4@8(%rax,%rbx,3)"), "bad scale");
	CHECK_EQ_STR(bad("4@8(%rip)"), "%rip-relative operand without a symbol");
	CHECK_EQ_STR(bad("4@foo(%rbx)"), "symbol relative to a register");
	CHECK_EQ_STR(bad("4@8(%rax)x"), "unexpected text after the operand");
	CHECK_EQ_STR(bad("4@*8"), "unknown operand");
}

TEST(lists)
{
	struct ut_usdt_arg v[UT_USDT_MAX_ARGS];
	char why[96] = "";

	CHECK_EQ_INT(ut_usdt_parse_args("", v, why, sizeof(why)), 0);
	CHECK_EQ_INT(ut_usdt_parse_args("-4@%edi 8@-16(%rbp)  8@%rax 4@$5", v, why, sizeof(why)), 4);
	CHECK_EQ_INT(v[1].loc, UT_USDT_MEM);
	CHECK_EQ_INT(v[3].val, 5);
	CHECK_EQ_INT(ut_usdt_parse_args("-4@%edi 4@%bogus", v, why, sizeof(why)), -EINVAL);
	CHECK_EQ_STR(why, "arg2 '4@%bogus': unknown register");
	CHECK_EQ_INT(ut_usdt_parse_args("1@$1 1@$2 1@$3 1@$4 1@$5 1@$6 1@$7 1@$8 1@$9 1@$10 1@$11 "
					"1@$12",
					v, why, sizeof(why)),
		     12);
	CHECK_EQ_INT(ut_usdt_parse_args("1@$1 1@$2 1@$3 1@$4 1@$5 1@$6 1@$7 1@$8 1@$9 1@$10 1@$11 "
					"1@$12 1@$13",
					v, why, sizeof(why)),
		     -EINVAL);
	CHECK_EQ_STR(why, "more than 12 arguments");
}

TEST(event_words)
{
	CHECK(ut_usdt_word_matches("python:function__entry", 22, "python", "function__entry"));
	CHECK(!ut_usdt_word_matches("python:function__entry", 22, "python", "function__return"));
	CHECK(ut_usdt_word_matches("python:function__*", 18, "python", "function__return"));
	CHECK(ut_usdt_word_matches("*:gc__start", 11, "python", "gc__start"));
	CHECK(ut_usdt_word_matches("python:", 7, "python", "line"));
	/* a bare word: an event of any provider, or a whole provider (set_event) */
	CHECK(ut_usdt_word_matches("line", 4, "python", "line"));
	CHECK(ut_usdt_word_matches("python", 6, "python", "line"));
	CHECK(!ut_usdt_word_matches("pyth", 4, "python", "line"));
	/* the last word naming a probe decides; !word removes */
	CHECK(ut_usdt_selected("utest:* !utest:noargs", "utest", "pair"));
	CHECK(!ut_usdt_selected("utest:* !utest:noargs", "utest", "noargs"));
	CHECK(ut_usdt_selected("!utest:pair utest:*", "utest", "pair"));
	CHECK(!ut_usdt_selected(NULL, "utest", "pair"));
	CHECK(!ut_usdt_selected("", "utest", "pair"));
}

int main(void)
{
	RUN(registers);
	RUN(constants);
	RUN(memory);
	RUN(bad_input);
	RUN(lists);
	RUN(event_words);
	TEST_EXIT();
}
