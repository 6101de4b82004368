// SPDX-License-Identifier: MIT
/*
 * x86-64 USDT argument descriptions (common/usdt.h): `[-]SIZE@OPERAND`,
 * the operand as GNU as writes it in AT&T syntax, since sys/sdt.h has the
 * compiler print each argument's "nor" asm operand into the note:
 *
 *   %edi  %al  %ah  %r8d        a register, or part of one
 *   $5  $-1  $0x10  $foo        a constant (a symbol: its address)
 *   -16(%rbp)  (%rax)  8(%rax,%rdx,4)  (,%rcx,8)
 *                               memory relative to registers
 *   foo(%rip)  foo+8(%rip)      a static variable (the symbol's address)
 *   0x601040                    memory at an absolute address
 *
 * Register numbers are this file's: rax rbx rcx rdx rsi rdi rbp rsp r8..r15
 * rip, 0 to 16, which the runtime maps to a signal context's registers.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/usdt.h"

#define REG_RIP 16

static const char *const reg64[17] = {"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp",
				      "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15",
				      "rip"};

const char *ut_usdt_reg_name(unsigned reg)
{
	return reg < 17 ? reg64[reg] : "?";
}

struct regname {
	const char *name;
	uint8_t reg, size, shift;
};

/* The legacy registers' narrower names (r8..r15 are spelled by suffix: below). */
static const struct regname legacy[] = {
	{"eax", 0, 4, 0}, {"ebx", 1, 4, 0}, {"ecx", 2, 4, 0}, {"edx", 3, 4, 0},
	{"esi", 4, 4, 0}, {"edi", 5, 4, 0}, {"ebp", 6, 4, 0}, {"esp", 7, 4, 0},
	{"ax", 0, 2, 0},  {"bx", 1, 2, 0},  {"cx", 2, 2, 0},  {"dx", 3, 2, 0},
	{"si", 4, 2, 0},  {"di", 5, 2, 0},  {"bp", 6, 2, 0},  {"sp", 7, 2, 0},
	{"al", 0, 1, 0},  {"bl", 1, 1, 0},  {"cl", 2, 1, 0},  {"dl", 3, 1, 0},
	{"sil", 4, 1, 0}, {"dil", 5, 1, 0}, {"bpl", 6, 1, 0}, {"spl", 7, 1, 0},
	{"ah", 0, 1, 8},  {"bh", 1, 1, 8},  {"ch", 2, 1, 8},  {"dh", 3, 1, 8},
};

static void say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (!why || !whylen)
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

/* The register named by @s (@n bytes, no '%'); false if none. */
static bool lookup_reg(const char *s, size_t n, struct regname *out)
{
	char name[8];

	if (n == 0 || n >= sizeof(name))
		return false;
	memcpy(name, s, n);
	name[n] = '\0';
	for (unsigned i = 0; i < 17; i++)
		if (!strcmp(name, reg64[i])) {
			*out = (struct regname){reg64[i], (uint8_t)i, 8, 0};
			return true;
		}
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++)
		if (!strcmp(name, legacy[i].name)) {
			*out = legacy[i];
			return true;
		}
	/* r8..r15 with a suffix: d (4 bytes), w (2), b (1) */
	if (name[0] == 'r' && n >= 3) {
		char *end;
		long k = strtol(name + 1, &end, 10);
		uint8_t size = !strcmp(end, "d") ? 4 : !strcmp(end, "w") ? 2 : !strcmp(end, "b") ? 1 : 0;

		if (k >= 8 && k <= 15 && end != name + 1 && size) {
			*out = (struct regname){NULL, (uint8_t)k, size, 0};
			return true;
		}
	}
	return false;
}

/* Skip "%NAME" at *@p (before @end) into @r; false if it is no register. */
static bool take_reg(const char **p, const char *end, struct regname *r)
{
	const char *s = *p, *q;

	if (s >= end || *s != '%')
		return false;
	for (q = ++s; q < end && ((*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9')); q++)
		;
	if (!lookup_reg(s, (size_t)(q - s), r))
		return false;
	*p = q;
	return true;
}

/* A number at *@p: decimal or 0x hex, with an optional sign.  false if none. */
static bool take_num(const char **p, const char *end, int64_t *v)
{
	char buf[32], *e;
	size_t n = 0;
	const char *s = *p;

	while (s + n < end && n < sizeof(buf) - 1 &&
	       (s[n] == '-' || s[n] == '+' || s[n] == 'x' || s[n] == 'X' ||
		(s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f') ||
		(s[n] >= 'A' && s[n] <= 'F')))
		n++;
	if (!n || n == sizeof(buf) - 1)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	if (buf[0] == '-')
		*v = (int64_t)strtoll(buf, &e, 0);
	else
		*v = (int64_t)strtoull(buf, &e, 0);
	if (e == buf || errno)
		return false;
	*p = s + (e - buf);
	return true;
}

/* A symbol at *@p, with an optional +N / -N offset: name into a->sym, offset into a->val. */
static bool take_sym(const char **p, const char *end, struct ut_usdt_arg *a)
{
	const char *s = *p, *q = s;

	if (s >= end || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
			  *s == '.'))
		return false;
	while (q < end && ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '_' ||
			   *q == '.' || *q == '$' || (*q >= '0' && *q <= '9')))
		q++;
	if ((size_t)(q - s) >= sizeof(a->sym))
		return false;
	memcpy(a->sym, s, (size_t)(q - s));
	a->sym[q - s] = '\0';
	a->val = 0;
	if (q < end && (*q == '+' || *q == '-') && !take_num(&q, end, &a->val))
		return false;
	*p = q;
	return true;
}

/* "(%base[,%index[,scale]])" or "(,%index[,scale])" at *@p. */
static int take_mem(const char **p, const char *end, struct ut_usdt_arg *a, char *why,
		    size_t whylen)
{
	const char *s = *p + 1;
	struct regname r;

	if (s < end && *s != ',') {
		if (!take_reg(&s, end, &r) || r.size != 8)
			return say(why, whylen, "bad base register"), -EINVAL;
		a->reg = r.reg;
	}
	if (s < end && *s == ',') {
		int64_t scale = 1;

		s++;
		if (!take_reg(&s, end, &r) || r.size != 8 || r.reg == REG_RIP)
			return say(why, whylen, "bad index register"), -EINVAL;
		a->index = r.reg;
		if (s < end && *s == ',') {
			s++;
			if (!take_num(&s, end, &scale) ||
			    (scale != 1 && scale != 2 && scale != 4 && scale != 8))
				return say(why, whylen, "bad scale"), -EINVAL;
		}
		a->scale = (uint8_t)scale;
	}
	if (s >= end || *s != ')')
		return say(why, whylen, "expected ')'"), -EINVAL;
	*p = s + 1;
	return 0;
}

/* A memory operand: [disp|sym](...), or an absolute address. */
static int parse_mem(const char *s, const char *end, struct ut_usdt_arg *a, char *why,
		     size_t whylen)
{
	bool sym = take_sym(&s, end, a);

	if (!sym && s < end && *s != '(' && !take_num(&s, end, &a->val))
		return say(why, whylen, "unknown operand"), -EINVAL;
	a->loc = UT_USDT_MEM;
	if (s < end && *s == '(' && take_mem(&s, end, a, why, whylen))
		return -EINVAL;
	if (s != end)
		return say(why, whylen, "unexpected text after the operand"), -EINVAL;
	if (a->reg == REG_RIP) {
		/* the note is no instruction: foo(%rip) means foo's address */
		if (!sym || a->index != UT_USDT_NO_REG)
			return say(why, whylen, "%%rip-relative operand without a symbol"), -EINVAL;
		a->reg = UT_USDT_NO_REG;
		a->loc = UT_USDT_STATIC;
	} else if (sym) {
		if (a->reg != UT_USDT_NO_REG || a->index != UT_USDT_NO_REG)
			return say(why, whylen, "symbol relative to a register"), -EINVAL;
		a->loc = UT_USDT_STATIC;
	}
	return 0;
}

static int parse_operand(const char *s, const char *end, struct ut_usdt_arg *a, char *why,
			 size_t whylen)
{
	struct regname r;

	if (s >= end)
		return say(why, whylen, "empty operand"), -EINVAL;
	if (*s == '%') {
		if (!take_reg(&s, end, &r) || s != end || r.reg == REG_RIP)
			return say(why, whylen, "unknown register"), -EINVAL;
		*a = (struct ut_usdt_arg){.loc = UT_USDT_REG, .size = a->size, .is_signed = a->is_signed,
					  .reg = r.reg, .reg_size = r.size, .reg_shift = r.shift,
					  .index = UT_USDT_NO_REG, .scale = 1};
		return 0;
	}
	if (*s == '$') {
		s++;
		if (take_sym(&s, end, a))
			a->loc = UT_USDT_SYMADDR;
		else if (take_num(&s, end, &a->val))
			a->loc = UT_USDT_CONST;
		else
			return say(why, whylen, "bad constant"), -EINVAL;
		if (s != end)
			return say(why, whylen, "unexpected text after the constant"), -EINVAL;
		return 0;
	}
	return parse_mem(s, end, a, why, whylen);
}

int ut_usdt_parse_arg(const char *spec, size_t len, struct ut_usdt_arg *a, char *why,
		      size_t whylen)
{
	const char *end = spec + len, *at = memchr(spec, '@', len), *s = spec;
	int64_t size = 8;

	*a = (struct ut_usdt_arg){.reg = UT_USDT_NO_REG, .index = UT_USDT_NO_REG, .scale = 1};
	if (at) {
		/* sys/sdt.h writes the size negative for a signed type */
		if (!take_num(&s, at, &size) || s != at)
			return say(why, whylen, "bad size"), -EINVAL;
		a->is_signed = size < 0;
		if (size < 0)
			size = -size;
		s = at + 1;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return say(why, whylen, "bad size %lld", (long long)size), -EINVAL;
	a->size = (uint8_t)size;
	if (parse_operand(s, end, a, why, whylen))
		return -EINVAL;
	if (!at && a->loc == UT_USDT_REG) /* an old note without sizes: the register's */
		a->size = a->reg_size;
	return 0;
}
