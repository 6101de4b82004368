/* SPDX-License-Identifier: MIT */
/*
 * The compiled form of an event filter (common/evfilter.h), shared by its
 * parser (evfilter_parse.c, the tools) and its evaluator (evfilter.c, the
 * runtime too): predicates and logical operators in postfix order, each
 * predicate self-contained (where its field is, how to compare).
 */
#ifndef UT_EVFILTER_PROG_H
#define UT_EVFILTER_PROG_H

#include <stdint.h>

#include "common/evfilter.h"

/* The most predicates a filter has: the evaluator's stack is one 64-bit word. */
#define UT_EVF_MAX_PREDS 32u
/* The longest string operand, NUL excluded (the kernel's MAX_FILTER_STR_VAL - 1). */
#define UT_EVF_MAX_STR 255

enum ut_evf_code { UT_EVF_PRED = 1, UT_EVF_AND, UT_EVF_OR, UT_EVF_NOT };

enum ut_evf_cmp { UT_EVF_EQ = 1, UT_EVF_NE, UT_EVF_LT, UT_EVF_LE, UT_EVF_GT, UT_EVF_GE,
		  UT_EVF_BAND, UT_EVF_GLOB };

struct ut_evf_op {
	uint8_t code;      /* enum ut_evf_code */
	uint8_t cmp;       /* PRED: enum ut_evf_cmp */
	uint8_t kind;      /* PRED: enum ut_evf_kind */
	uint8_t size;      /* PRED: the field's size (strings: their room) */
	uint8_t is_signed;
	uint8_t gtype;     /* strings: enum ut_glob_type of the search text */
	uint8_t negate;    /* strings: != or a "!" glob */
	uint8_t pad;
	uint16_t offset;   /* PRED: the field's offset in the record */
	uint16_t slen;     /* strings: the search text's length */
	uint64_t val;      /* numbers: the operand */
	char str[UT_EVF_MAX_STR + 1]; /* strings: the search text (stars taken off) */
};

struct ut_evf {
	uint32_t n;
	unsigned uses;     /* UT_EVF_USES_* */
	struct ut_evf_op op[];
};

#endif
