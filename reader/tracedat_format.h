/* SPDX-License-Identifier: MIT */
/*
 * What the trace.dat writer and reader agree on: the page and event-header
 * layout of the kernel's ring buffer, trace-cmd's option ids and section
 * texts, and the table of event formats utrace writes and decodes.
 * docs/file-format.md describes the bytes.
 */
#ifndef UT_READER_TRACEDAT_FORMAT_H
#define UT_READER_TRACEDAT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "reader/tracedat.h"

#define TD_PAGE_SIZE UT_TRACEDAT_PAGE_SIZE
#define TD_PAGE_HDR 16                          /* u64 timestamp + local_t commit */
#define TD_DATA_SIZE (TD_PAGE_SIZE - TD_PAGE_HDR) /* 4080, as header_page says */

/* Ring-buffer event header: type_len:5, time_delta:27. */
#define TD_TYPE_PADDING 29
#define TD_TYPE_TIME_EXTEND 30
#define TD_TYPE_TIME_STAMP 31
#define TD_MAX_SMALL_DATA ((size_t)28 * 4) /* larger payloads keep their length in array[0] */
#define TD_DELTA_BITS 27
#define TD_DELTA_MAX (1ULL << TD_DELTA_BITS)
/* A time-extend holds 27 + 32 bits of delta. */
#define TD_EXTEND_MAX (1ULL << (TD_DELTA_BITS + 32))

/* Flags in the page's commit word (kernel's RB_MISSED_*). */
#define TD_MISSED_EVENTS (1ULL << 31)
#define TD_MISSED_STORED (1ULL << 30)
#define TD_COMMIT_MASK ((1ULL << 27) - 1)

/*
 * Biggest payload one page can take: the data area minus a time extend (8),
 * an event header with its length word (8) and a stored lost count (8).
 */
#define TD_MAX_PAYLOAD (TD_DATA_SIZE - 24)
#define TD_MAX_CALLERS ((TD_MAX_PAYLOAD - 16) / 8)
#define TD_USER_STACK_SLOTS 8
/* More CPUs than any kernel supports (NR_CPUS is at most 8192) is corruption. */
#define TD_MAX_CPUS 8192

/* Marker symbol after the last real one in kallsyms (the writer's meta_kallsyms()). */
#define TD_END_SYM "_utrace_end"

/* trace-cmd option ids (trace-cmd's TRACECMD_OPTION_*). */
#define TD_OPT_DONE 0
#define TD_OPT_TRACECLOCK 4
#define TD_OPT_UNAME 5
#define TD_OPT_CPUCOUNT 8
/* Version 7 only: the data's buffer, the strings and the section offsets. */
#define TD_OPT_BUFFER 3
#define TD_OPT_STRINGS 15
#define TD_OPT_HEADER_INFO 16   /* then FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS, PRINTK, CMDLINES */
#define TD_NR_META_SECTIONS 6
#define TD_SEC_COMPRESSED 1     /* section header flag */
#define TD_SEC_HDR 16           /* u16 id, u16 flags, u32 description, u64 size */

extern const unsigned char td_magic[10];

struct td_format {
	const char *system; /* NULL: ftrace */
	const char *name;
	uint16_t type;      /* UT_EV_* */
	const char *text;
};

extern const struct td_format td_formats[];
extern const size_t td_nr_formats;
/* Upper bound of td_nr_formats, for arrays sized at compile time. */
#define TD_MAX_FORMATS 16

/* The file is little-endian whatever the host. */
static inline void td_put_le(unsigned char *p, uint64_t v, int n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8 || n == 4 || n == 2) { /* one store (n is a constant once inlined) */
		if (n == 8)
			__builtin_memcpy(p, &v, 8);
		else if (n == 4)
			__builtin_memcpy(p, &(uint32_t){(uint32_t)v}, 4);
		else
			__builtin_memcpy(p, &(uint16_t){(uint16_t)v}, 2);
		return;
	}
#endif
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t td_get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Format a message into the caller's error buffer (which may be NULL). */
void td_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
