/* SPDX-License-Identifier: MIT */
/*
 * Event filters: the kernel's filter language (SPEC §9.3) over any event
 * format, for an event's `filter` file, `record -e EVT -f FILTER` and a
 * trigger's `if FILTER`.
 *
 *   FILTER := TERM { ("&&" | "||") TERM }     && binds tighter than ||
 *   TERM   := "!" TERM | "(" FILTER ")" | FIELD OP VALUE
 *   OP     := == != < <= > >= &  (numbers)   == != ~  (strings; ~ is a glob)
 *
 * A filter is parsed by the tools against the event's fields (its format
 * file's, the common ones added here) into a compiled program: a short
 * list of predicates in postfix order that names fields by offset, size
 * and kind, so evaluating it needs no names and no format.  The program
 * travels to the traced process as one blank-free word
 * (ut_evf_encode/ut_evf_decode, the configuration's `event_filter` line)
 * and is evaluated there (ut_evf_match) on the event's record laid out as
 * its format says, before the record is written.
 *
 * Parsing mallocs; matching does not allocate, takes no lock and calls no
 * libc function that is not async-signal-safe (the runtime calls it from
 * its SIGTRAP handler).
 */
#ifndef UT_EVFILTER_H
#define UT_EVFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a field holds, as far as a filter is concerned. */
enum ut_evf_kind {
	UT_EVF_NUM,    /* an integer of @size 1, 2, 4 or 8 bytes */
	UT_EVF_STRLOC, /* __data_loc char[]: a u32, low 16 bits the string's offset
			* in the record, high 16 bits its length (NUL included) */
	UT_EVF_STRFIX, /* char NAME[@size] inline (NUL-padded or not) */
	UT_EVF_COMM,   /* the thread's name (comm/COMM): from the context */
	UT_EVF_CPU,    /* the CPU (CPU/common_cpu): from the context */
};

/* One field of an event's record, as its format file describes it. */
struct ut_evf_field {
	const char *name;
	uint16_t offset; /* from the record's start (common_type at 0) */
	uint16_t size;
	uint8_t is_signed;
	uint8_t kind;    /* enum ut_evf_kind */
};

/*
 * What the record does not hold, filled by the caller when a filter needs
 * it (ut_evf_uses()).
 */
struct ut_evf_ctx {
	uint32_t cpu;
	const char *comm; /* NUL-terminated; NULL: "" */
};

struct ut_evf;

/* The kernel's parse errors (their texts: ut_evf_errtext()). */
enum ut_evf_err {
	UT_EVF_OK = 0,
	UT_EVF_E_INVALID_OP,
	UT_EVF_E_TOO_MANY_OPEN,
	UT_EVF_E_TOO_MANY_CLOSE,
	UT_EVF_E_MISSING_QUOTE,
	UT_EVF_E_OPERAND_TOO_LONG,
	UT_EVF_E_EXPECT_STRING,
	UT_EVF_E_EXPECT_DIGIT,
	UT_EVF_E_ILLEGAL_FIELD_OP,
	UT_EVF_E_FIELD_NOT_FOUND,
	UT_EVF_E_ILLEGAL_INTVAL,
	UT_EVF_E_BAD_SUBSYS_FILTER,
	UT_EVF_E_TOO_MANY_PREDS,
	UT_EVF_E_INVALID_FILTER,
	UT_EVF_E_INVALID_VALUE,
	UT_EVF_E_NO_FILTER,
	UT_EVF_E_NOMEM,
	UT_EVF_E_NR,
};

/* Where and why a filter did not parse: the kernel's position convention. */
struct ut_evf_error {
	int code; /* enum ut_evf_err */
	int pos;  /* the kernel's lasterr_pos: error_log puts the caret @pos
		   * columns after "  Command: "; the filter file min(pos, strlen) */
};

/*
 * Compile @text against the event's @fields (@n of them; the common fields
 * common_type, common_flags, common_preempt_count and common_pid, and
 * comm/COMM, CPU/common_cpu are always there and need not be listed).
 * Return: 0 with the program in *@out, or -EINVAL (-ENOMEM) with *@err set
 * and *@out NULL.
 */
int ut_evf_parse(const char *text, const struct ut_evf_field *fields, size_t n,
		 struct ut_evf **out, struct ut_evf_error *err);

/*
 * Does the record @rec (@len bytes, laid out as the fields said) pass?
 * A field beyond @len, a string beyond it, compares as 0 / "".
 */
bool ut_evf_match(const struct ut_evf *f, const void *rec, size_t len,
		  const struct ut_evf_ctx *ctx);

/* What ut_evf_match() needs from the context: UT_EVF_USES_* bits. */
#define UT_EVF_USES_COMM 1u
#define UT_EVF_USES_CPU 2u
unsigned ut_evf_uses(const struct ut_evf *f);

void ut_evf_free(struct ut_evf *f);

/* The program as one word of printable characters without blanks, malloc'd; NULL on ENOMEM. */
char *ut_evf_encode(const struct ut_evf *f);

/* Back from ut_evf_encode()'s word (@len bytes).  Return: 0, or -EINVAL / -ENOMEM. */
int ut_evf_decode(const char *word, size_t len, struct ut_evf **out);

/* The kernel's message for @code ("Field not found"). */
const char *ut_evf_errtext(int code);

/*
 * The text the kernel's filter file shows after a failed write of @text:
 * the filter, a line with the caret, "parse_error: MESSAGE", and an empty
 * line, into @buf (NUL-terminated, cut at @len).
 */
void ut_evf_error_file(char *buf, size_t len, const char *text, const struct ut_evf_error *e);

/* Whether @text (blanks around it aside) is "0": what clears a filter. */
bool ut_evf_is_clear(const char *text);

#endif
