/* SPDX-License-Identifier: MIT */
/*
 * USDT probes as trace events: the event format each enabled probe gets in
 * trace.dat (system = the provider, name = the probe's name, fields
 * arg1..argN of the note's sizes and signedness), the table that names a
 * recorded probe address after the objects the sessions loaded, and the
 * kernel-style text of one event ("arg1=1 arg2=-1000").
 *
 * In a PROBE record and in trace.dat alike, argument i sits in the 8-byte
 * slot at 8 * i after the common fields, sign- or zero-extended: the
 * field's declared size of it (little-endian: its first bytes) is the value.
 * A string argument's slot holds its `__data_loc` (4 bytes: offset from the
 * event's start, length with the NUL); the strings follow the slots.
 * Arguments a description names are fields of that name, else argN.
 */
#ifndef UT_USDT_EVENTS_H
#define UT_USDT_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/evfilter.h"
#include "common/usdt.h"

/* Event ids trace.dat gives USDT events: the first, and how many at most. */
#define UT_EV_PROBE_FIRST_ID 1100
#define UT_EV_PROBE_MAX_IDS 4096

struct ut_evfmt {
	char system[64];    /* the provider */
	char name[64];
	uint16_t id;        /* in trace.dat */
	uint8_t nargs;
	uint8_t size[UT_USDT_MAX_ARGS];
	uint8_t is_signed[UT_USDT_MAX_ARGS];
	/* from a description (common/usdt_desc.h): a name ("": argN), a string */
	char argname[UT_USDT_MAX_ARGS][UT_USDT_NAME_MAX];
	uint8_t is_string[UT_USDT_MAX_ARGS];
	/*
	 * A string's array size: 0 a __data_loc string (up to 256 bytes in a
	 * hist key, as the kernel's), N a char[N] (a process event's comm[16]:
	 * N bytes in a key).  Triggers only: the record's layout is the slots'.
	 */
	uint16_t strsize[UT_USDT_MAX_ARGS];
	/*
	 * A synthetic event's (common/synth.h): a string is declared as the
	 * kernel's synthetic events declare one (size 8) and printed bare
	 * (name=text), not quoted as a probe's.
	 */
	uint8_t synthetic;
};

/* The format file's text of @f (name, ID, common fields, args, print fmt), malloc'd. */
char *ut_evfmt_text(const struct ut_evfmt *f);

/*
 * Read back a format written by ut_evfmt_text() (@system: the trace.dat
 * system it came under).  Return: 0, or -EINVAL for a format of another
 * layout (another tracer's event).
 */
int ut_evfmt_parse(struct ut_evfmt *f, const char *system, const char *text);

/*
 * "arg1=1 arg2=-1000 name=\"x\"" into @buf: the values of @args (8-byte
 * slots, then strings: @argbytes bytes in all) as the print fmt prints
 * them; a string whose pointer could not be read prints (fault).
 */
void ut_evfmt_print(char *buf, size_t len, const struct ut_evfmt *f, const uint64_t *args,
		    size_t argbytes);

/* @f from probe @p's note (no id). */
void ut_evfmt_from_probe(struct ut_evfmt *f, const struct ut_usdt_probe *p);

/*
 * The fields of @f's records for a filter (common/evfilter.h): arg1..argN
 * in their slots, into @out (room for UT_USDT_MAX_ARGS).  Return: how many.
 */
size_t ut_evfmt_fields(const struct ut_evfmt *f, struct ut_evf_field *out);

/* Probe addresses of loaded objects, with their events' descriptions (no ids). */
struct ut_probetab {
	struct ut_probetab_ent {
		uint64_t pc;
		struct ut_evfmt f;
	} *v;
	size_t n;
};

/* Add the probes of the object at @path loaded at @bias.  Return: 0 or -errno. */
int ut_probetab_add_object(struct ut_probetab *t, const char *path, uint64_t bias);
/* Sort for lookups, after the last add. */
void ut_probetab_finish(struct ut_probetab *t);
/* The probe recorded at @pc, or NULL. */
const struct ut_evfmt *ut_probetab_find(const struct ut_probetab *t, uint64_t pc);
void ut_probetab_free(struct ut_probetab *t);

/*
 * The probes of every object the sessions in @dirs loaded (their "modules"
 * files), from the objects' files.  NULL on ENOMEM.
 */
struct ut_probetab *ut_live_probes(const char *const *dirs, size_t n);

#endif
