// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: event filters (common/evfilter_parse.c, evfilter.c)
 * and USDT description lines (common/usdt_desc.c's line parser).
 *
 * The input's first line is a filter, parsed against a fixed format with
 * numbers of every size and signedness, a __data_loc string and a char
 * array; the rest of the input is the record it is matched on (its
 * __data_loc pointing anywhere, in or out of the record) and, read as
 * text, an encoded program handed to the decoder as the runtime would get
 * it from a configuration, and a description line.  Invariants: a parse
 * error's position is within the text (the kernel's + 1 at most); a
 * filter that parses survives encode and decode, and the decoded program
 * gives the same answer on the record; nothing leaks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evfilter.h"
#include "common/usdt_desc.h"

#define REQUIRE(cond)                                                                              \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static const struct ut_evf_field fields[] = {
	{"s8", 8, 1, 1, UT_EVF_NUM},	  {"u8", 9, 1, 0, UT_EVF_NUM},
	{"s16", 10, 2, 1, UT_EVF_NUM},	  {"u16", 12, 2, 0, UT_EVF_NUM},
	{"s32", 16, 4, 1, UT_EVF_NUM},	  {"u32", 20, 4, 0, UT_EVF_NUM},
	{"s64", 24, 8, 1, UT_EVF_NUM},	  {"u64", 32, 8, 0, UT_EVF_NUM},
	{"name", 40, 4, 1, UT_EVF_STRLOC}, {"tag", 44, 8, 0, UT_EVF_STRFIX},
};

static void check_parse(const char *text, const uint8_t *rec, size_t len)
{
	struct ut_evf_ctx ctx = {.cpu = 3, .comm = "fuzzer"};
	struct ut_evf *f = NULL, *g = NULL;
	struct ut_evf_error e;
	char report[2048], *w;

	if (ut_evf_parse(text, fields, sizeof(fields) / sizeof(fields[0]), &f, &e)) {
		REQUIRE(!f);
		REQUIRE(e.code > 0 && e.code < UT_EVF_E_NR);
		REQUIRE(e.pos >= 0 && (size_t)e.pos <= strlen(text) + 1);
		ut_evf_error_file(report, sizeof(report), text, &e);
		return;
	}
	w = ut_evf_encode(f);
	REQUIRE(w && !strpbrk(w, " \t\n"));
	REQUIRE(ut_evf_decode(w, strlen(w), &g) == 0);
	REQUIRE(ut_evf_match(f, rec, len, &ctx) == ut_evf_match(g, rec, len, &ctx));
	REQUIRE(ut_evf_uses(f) == ut_evf_uses(g));
	free(w);
	ut_evf_free(f);
	ut_evf_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t tl = nl ? (size_t)(nl - data) : size, rl = size - tl - (nl != NULL);
	char *text = malloc(tl + 1), *rest = malloc(rl + 1), ev[160];
	char names[UT_USDT_MAX_ARGS][UT_USDT_NAME_MAX];
	unsigned char strings[UT_USDT_MAX_ARGS];
	struct ut_evf *g = NULL;
	uint8_t *rec = malloc(rl ? rl : 1);

	REQUIRE(text && rest && rec);
	memcpy(text, data, tl);
	text[tl] = '\0';
	memcpy(rest, data + size - rl, rl);
	rest[rl] = '\0';
	memcpy(rec, data + size - rl, rl);
	if (strlen(text) == tl)
		check_parse(text, rec, rl);
	/* the rest as a configuration's program word: anything may come */
	if (ut_evf_decode(rest, rl, &g) == 0) {
		struct ut_evf_ctx ctx = {.cpu = 1, .comm = NULL};

		(void)ut_evf_match(g, rec, rl, &ctx);
		(void)ut_evf_match(g, data, size, NULL);
		ut_evf_free(g);
	}
	(void)ut_usdt_desc_line(rest, ev, sizeof(ev), names, strings);
	(void)ut_usdt_desc_line(text, ev, sizeof(ev), names, strings);
	free(text);
	free(rest);
	free(rec);
	return 0;
}
