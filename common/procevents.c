// SPDX-License-Identifier: MIT
/*
 * Process events (common/procevents.h): their formats, byte for byte the
 * kernel's (Linux 6.18, x86-64: events/sched/sched_process_fork/format and
 * the others) but for the id, and their text as the kernel prints it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/procevents.h"
#include "common/usdt.h"

#define F(type, name, off, size, sign)                                                    \
	"\tfield:" type " " name ";\toffset:" #off ";\tsize:" #size ";\tsigned:" #sign ";\n"

static const struct ut_procev events[] = {
	{"ftrace", "print", UT_PEV_PRINT, 16,
	 F("unsigned long", "ip", 8, 8, 0) F("char", "buf[]", 16, 0, 0),
	 "\"%ps: %s\", (void *)REC->ip, REC->buf"},
	{"sched", "sched_process_fork", UT_PEV_FORK, 24,
	 F("__data_loc char[]", "parent_comm", 8, 4, 0) F("pid_t", "parent_pid", 12, 4, 1)
	 F("__data_loc char[]", "child_comm", 16, 4, 0) F("pid_t", "child_pid", 20, 4, 1),
	 "\"comm=%s pid=%d child_comm=%s child_pid=%d\", __get_str(parent_comm), "
	 "REC->parent_pid, __get_str(child_comm), REC->child_pid"},
	{"sched", "sched_process_exec", UT_PEV_EXEC, 20,
	 F("__data_loc char[]", "filename", 8, 4, 0) F("pid_t", "pid", 12, 4, 1)
	 F("pid_t", "old_pid", 16, 4, 1),
	 "\"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid"},
	{"sched", "sched_process_exit", UT_PEV_EXIT, 33,
	 F("char", "comm[16]", 8, 16, 0) F("pid_t", "pid", 24, 4, 1) F("int", "prio", 28, 4, 1)
	 F("bool", "group_dead", 32, 1, 0),
	 "\"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, REC->pid, REC->prio, "
	 "REC->group_dead ? \"true\" : \"false\""},
	{"sched", "sched_process_free", UT_PEV_FREE, 20,
	 F("__data_loc char[]", "comm", 8, 4, 0) F("pid_t", "pid", 12, 4, 1) F("int", "prio", 16, 4, 1),
	 "\"comm=%s pid=%d prio=%d\", __get_str(comm), REC->pid, REC->prio"},
	{"sched", "sched_process_wait", UT_PEV_WAIT, 20,
	 F("__data_loc char[]", "comm", 8, 4, 0) F("pid_t", "pid", 12, 4, 1) F("int", "prio", 16, 4, 1),
	 "\"comm=%s pid=%d prio=%d\", __get_str(comm), REC->pid, REC->prio"},
	{"signal", "signal_generate", UT_PEV_SIG_GENERATE, 48,
	 F("int", "sig", 8, 4, 1) F("int", "errno", 12, 4, 1) F("int", "code", 16, 4, 1)
	 F("char", "comm[16]", 20, 16, 0) F("pid_t", "pid", 36, 4, 1) F("int", "group", 40, 4, 1)
	 F("int", "result", 44, 4, 1),
	 "\"sig=%d errno=%d code=%d comm=%s pid=%d grp=%d res=%d\", REC->sig, REC->errno, "
	 "REC->code, REC->comm, REC->pid, REC->group, REC->result"},
	{"signal", "signal_deliver", UT_PEV_SIG_DELIVER, 40,
	 F("int", "sig", 8, 4, 1) F("int", "errno", 12, 4, 1) F("int", "code", 16, 4, 1)
	 F("unsigned long", "sa_handler", 24, 8, 0) F("unsigned long", "sa_flags", 32, 8, 0),
	 "\"sig=%d errno=%d code=%d sa_handler=%lx sa_flags=%lx\", REC->sig, REC->errno, "
	 "REC->code, REC->sa_handler, REC->sa_flags"},
	{"utrace", "thread_start", UT_PEV_THREAD_START, 24,
	 F("pid_t", "tid", 8, 4, 1) F("pid_t", "parent_tid", 12, 4, 1)
	 F("unsigned long", "func", 16, 8, 0),
	 "\"tid=%d parent_tid=%d func=%lx\", REC->tid, REC->parent_tid, REC->func"},
	{"utrace", "thread_exit", UT_PEV_THREAD_EXIT, 12, F("pid_t", "tid", 8, 4, 1),
	 "\"tid=%d\", REC->tid"},
	{"utrace", "dlopen", UT_PEV_DLOPEN, 24,
	 F("__data_loc char[]", "filename", 8, 4, 0) F("int", "mode", 12, 4, 1)
	 F("unsigned long", "base", 16, 8, 0),
	 "\"filename=%s base=%lx mode=0x%x\", __get_str(filename), REC->base, REC->mode"},
	{"utrace", "dlclose", UT_PEV_DLCLOSE, 24,
	 F("__data_loc char[]", "filename", 8, 4, 0) F("unsigned long", "base", 16, 8, 0),
	 "\"filename=%s base=%lx\", __get_str(filename), REC->base"},
};

#define NR_EVENTS (sizeof(events) / sizeof(events[0]))

const struct ut_procev *ut_procev_all(size_t *n)
{
	*n = NR_EVENTS;
	return events;
}

const struct ut_procev *ut_procev_by_id(uint16_t id)
{
	for (size_t i = 0; i < NR_EVENTS; i++)
		if (events[i].id == id)
			return &events[i];
	return NULL;
}

const struct ut_procev *ut_procev_find(const char *system, const char *name)
{
	for (size_t i = 0; i < NR_EVENTS; i++)
		if (!strcmp(events[i].system, system) && !strcmp(events[i].name, name))
			return &events[i];
	return NULL;
}

bool ut_procev_word_matches(const char *w, size_t len)
{
	/* ftrace:print is not in available_events: the kernel's is always on */
	for (size_t i = 1; i < NR_EVENTS; i++)
		if (ut_usdt_word_matches(w, len, events[i].system, events[i].name))
			return true;
	return false;
}

char *ut_procev_format(const struct ut_procev *e)
{
	char *text = NULL;

	if (asprintf(&text,
		     "name: %s\nID: %u\nformat:\n"
		     "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		     "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		     "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		     "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		     "\n%s\nprint fmt: %s\n",
		     e->name, e->id, e->fields, e->print_fmt) < 0)
		return NULL;
	return text;
}

/* ---- the text: each field read within the record, or "(fault)" ---- */

struct rec {
	const uint8_t *p;
	size_t len;
};

static int32_t i32(const struct rec *r, size_t off)
{
	int32_t v = 0;

	if (off + 4 <= r->len)
		memcpy(&v, r->p + off, 4);
	return v;
}

static uint64_t u64(const struct rec *r, size_t off)
{
	uint64_t v = 0;

	if (off + 8 <= r->len)
		memcpy(&v, r->p + off, 8);
	return v;
}

/* A __data_loc string (its u32 at @off) as "%.*s" arguments: NUL-terminated inside the record. */
static const char *dl_str(const struct rec *r, size_t off, int *n)
{
	uint32_t loc = (uint32_t)i32(r, off), at = loc & 0xffff, len = loc >> 16;

	if (off + 4 > r->len || !len || at < 8 || at + len > r->len || r->p[at + len - 1] != '\0') {
		*n = 7;
		return "(fault)";
	}
	*n = (int)(len - 1);
	return (const char *)r->p + at;
}

/* A char[16] at @off: up to its first NUL. */
static const char *comm(const struct rec *r, size_t off, int *n)
{
	if (off + 16 > r->len) {
		*n = 7;
		return "(fault)";
	}
	*n = (int)strnlen((const char *)r->p + off, 16);
	return (const char *)r->p + off;
}

static void print_sched(char *buf, size_t size, uint16_t id, const struct rec *r)
{
	const char *a, *b;
	int na, nb;

	switch (id) {
	case UT_PEV_FORK:
		a = dl_str(r, 8, &na);
		b = dl_str(r, 16, &nb);
		snprintf(buf, size, "comm=%.*s pid=%d child_comm=%.*s child_pid=%d", na, a,
			 i32(r, 12), nb, b, i32(r, 20));
		break;
	case UT_PEV_EXEC:
		a = dl_str(r, 8, &na);
		snprintf(buf, size, "filename=%.*s pid=%d old_pid=%d", na, a, i32(r, 12),
			 i32(r, 16));
		break;
	case UT_PEV_EXIT:
		a = comm(r, 8, &na);
		snprintf(buf, size, "comm=%.*s pid=%d prio=%d group_dead=%s", na, a, i32(r, 24),
			 i32(r, 28), r->len > 32 && r->p[32] ? "true" : "false");
		break;
	case UT_PEV_FREE:
	case UT_PEV_WAIT:
		a = dl_str(r, 8, &na);
		snprintf(buf, size, "comm=%.*s pid=%d prio=%d", na, a, i32(r, 12), i32(r, 16));
		break;
	}
}

static void print_signal(char *buf, size_t size, uint16_t id, const struct rec *r)
{
	const char *a;
	int na;

	if (id == UT_PEV_SIG_GENERATE) {
		a = comm(r, 20, &na);
		snprintf(buf, size, "sig=%d errno=%d code=%d comm=%.*s pid=%d grp=%d res=%d",
			 i32(r, 8), i32(r, 12), i32(r, 16), na, a, i32(r, 36), i32(r, 40),
			 i32(r, 44));
	} else {
		snprintf(buf, size, "sig=%d errno=%d code=%d sa_handler=%" PRIx64 " sa_flags=%" PRIx64,
			 i32(r, 8), i32(r, 12), i32(r, 16), u64(r, 24), u64(r, 32));
	}
}

static void print_utrace(char *buf, size_t size, uint16_t id, const struct rec *r)
{
	const char *a;
	int na;

	switch (id) {
	case UT_PEV_THREAD_START:
		snprintf(buf, size, "tid=%d parent_tid=%d func=%" PRIx64, i32(r, 8), i32(r, 12),
			 u64(r, 16));
		break;
	case UT_PEV_THREAD_EXIT:
		snprintf(buf, size, "tid=%d", i32(r, 8));
		break;
	case UT_PEV_DLOPEN:
		a = dl_str(r, 8, &na);
		snprintf(buf, size, "filename=%.*s base=%" PRIx64 " mode=0x%x", na, a, u64(r, 16),
			 (unsigned)i32(r, 12));
		break;
	case UT_PEV_DLCLOSE:
		a = dl_str(r, 8, &na);
		snprintf(buf, size, "filename=%.*s base=%" PRIx64, na, a, u64(r, 16));
		break;
	}
}

void ut_procev_print(char *buf, size_t size, const struct ut_procev *e, const uint8_t *rec,
		     size_t len)
{
	struct rec r = {rec, len};

	if (!size)
		return;
	buf[0] = '\0';
	if (e->id == UT_PEV_FORK || e->id == UT_PEV_EXEC || e->id == UT_PEV_EXIT ||
	    e->id == UT_PEV_FREE || e->id == UT_PEV_WAIT)
		print_sched(buf, size, e->id, &r);
	else if (e->id == UT_PEV_SIG_GENERATE || e->id == UT_PEV_SIG_DELIVER)
		print_signal(buf, size, e->id, &r);
	else
		print_utrace(buf, size, e->id, &r);
}
