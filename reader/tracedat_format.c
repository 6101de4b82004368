// SPDX-License-Identifier: MIT
/*
 * The trace.dat texts the writer copies into every file and the reader
 * matches against: the event formats utrace records (the ring buffer's
 * self-description, header_page and header_event, is common/ring_headers.c), byte for byte as the
 * kernel's tracefs prints them (Linux 6.x, x86-64), so trace-cmd learns the
 * page and event layouts from them.
 */
#include <stdarg.h>
#include <stdio.h>

#include "common/event.h"
#include "reader/tracedat_format.h"

const unsigned char td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

#define TD_COMMON_FIELDS                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"             \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"             \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"     \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                         \
	"\n"

#define TD_STACK_FMT                                                                       \
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" " \
	"\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "          \
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "           \
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n"

/* utrace's own events: event system "utrace" (a signal handler starts / returns) */
#define TD_SIGNAL_FMT(name, id)                                                            \
	"name: " name "\nID: " id "\nformat:\n" TD_COMMON_FIELDS                              \
	"\tfield:int sig;\toffset:8;\tsize:4;\tsigned:1;\n"                                  \
	"\tfield:unsigned int depth;\toffset:12;\tsize:4;\tsigned:0;\n"                      \
	"\n"                                                                               \
	"print fmt: \"sig=%d\", REC->sig\n"

const struct td_format td_formats[] = {
	{ NULL, "function", UT_EV_FUNCTION,
	  "name: function\nID: 1\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
	  "\n"
	  "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n" },
	{ NULL, "kernel_stack", UT_EV_KERNEL_STACK,
	  "name: kernel_stack\nID: 4\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	  "\n" TD_STACK_FMT },
	{ NULL, "print", UT_EV_PRINT,
	  "name: print\nID: 5\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n" },
	{ NULL, "funcgraph_exit", UT_EV_FUNCGRAPH_EXIT,
	  "name: funcgraph_exit\nID: 10\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", "
	  "(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, REC->retval\n" },
	{ NULL, "funcgraph_entry", UT_EV_FUNCGRAPH_ENTRY,
	  "name: funcgraph_entry\nID: 11\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n" },
	{ NULL, "user_stack", UT_EV_USER_STACK,
	  "name: user_stack\nID: 13\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	  "\n" TD_STACK_FMT },
	{ NULL, "func_repeats", UT_EV_FUNC_REPEATS,
	  "name: func_repeats\nID: 20\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:u16 count;\toffset:24;\tsize:2;\tsigned:0;\n"
	  "\tfield:u16 top_delta_ts;\toffset:26;\tsize:2;\tsigned:0;\n"
	  "\tfield:u32 bottom_delta_ts;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\n"
	  "print fmt: \" %ps <-%ps\\t(repeats:%u  delta: -%llu)\", (void *)REC->ip, "
	  "(void *)REC->parent_ip, REC->count, "
	  "(((u64)(REC)->top_delta_ts << 32) | (REC)->bottom_delta_ts)\n" },
	{ "utrace", "signal_enter", UT_EV_SIGNAL_ENTER, TD_SIGNAL_FMT("signal_enter", "1000") },
	{ "utrace", "signal_exit", UT_EV_SIGNAL_EXIT, TD_SIGNAL_FMT("signal_exit", "1001") },
	{ "utrace", "funcgraph_inlined", UT_EV_FUNCGRAPH_INLINED,
	  "name: funcgraph_inlined\nID: 1003\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:int depth;\toffset:16;\tsize:4;\tsigned:1;\n"
	  "\n"
	  "print fmt: \"%*s%ps(); /* inlined */\", REC->depth * 2, \"\", (void *)REC->func\n" },
};

const size_t td_nr_formats = sizeof(td_formats) / sizeof(td_formats[0]);

_Static_assert(sizeof(td_formats) / sizeof(td_formats[0]) <= TD_MAX_FORMATS,
	       "raise TD_MAX_FORMATS");

void td_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
