/* SPDX-License-Identifier: MIT */
/*
 * Synthetic events (the kernel's synthetic_events file, histogram.rst
 * section 2.2): "NAME TYPE FIELD[; TYPE FIELD]..." defines one, "!NAME ..."
 * removes it.  A synthetic event is recorded like a USDT probe's event
 * (common/usdt_events.h: 8-byte slots after the common fields, as the
 * kernel lays out its synthetic events too), under system "synthetic" and
 * a pseudo probe address made from its name (ut_synth_pc), so every
 * reader that names probe events names synthetic ones the same way.
 *
 * Integer types (the kernel's s8..u64, char, short, int, long and their
 * unsigned forms, bool, pid_t, gfp_t) and strings: "char NAME[]" (the
 * kernel's dynamic string, __data_loc char[]) and "char NAME[N]" (N <= 256,
 * its text up to N - 1 characters; listed as the kernel does, "char[16]
 * comm"); a string field's slot holds its __data_loc and its text follows
 * the slots, as a USDT probe's string (a char[N] too: the kernel lays one
 * out inline in 256 bytes, here it is declared __data_loc char[] in the
 * format).  stacktrace ("long[] NAME") is refused as "Invalid type".  The
 * parser is the kernel's: fields may follow each other without ';' (its old
 * format), and the error carets fall where its err_pos() puts them.  Pure
 * and malloc-free: the tools, the runtime and the fuzz target share it.
 */
#ifndef UT_SYNTH_H
#define UT_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/usdt_events.h"

#define UT_SYNTH_SYSTEM "synthetic"
#define UT_SYNTH_MAX_FIELDS UT_USDT_MAX_ARGS
/* Pseudo probe addresses: above user space (47 bits), within a record's 48-bit address. */
#define UT_SYNTH_PC_BASE 0x0000f00000000000ULL
#define UT_SYNTH_PC_MASK 0x00000fffffffffffULL

struct ut_synth_def {
	char name[64];
	uint8_t nfields;
	char type[UT_SYNTH_MAX_FIELDS][24]; /* as written: "u64", "unsigned int", "pid_t" */
	char field[UT_SYNTH_MAX_FIELDS][UT_USDT_NAME_MAX];
	uint8_t size[UT_SYNTH_MAX_FIELDS];
	uint8_t is_signed[UT_SYNTH_MAX_FIELDS];
	uint8_t is_string[UT_SYNTH_MAX_FIELDS];
	uint16_t strsize[UT_SYNTH_MAX_FIELDS]; /* a char[N]'s N, 0: char[] */
};

struct ut_synth_err {
	const char *msg; /* the kernel's text */
	size_t pos;	 /* where in the command (error_log's caret) */
};

/*
 * One line of @len bytes at @text: a definition, or with *@remove set a
 * removal ("!NAME", the fields optional).  0, or -EINVAL with @err.
 */
int ut_synth_parse(const char *text, size_t len, struct ut_synth_def *d, bool *remove,
		   struct ut_synth_err *err);

/* "NAME\tu64 lat; pid_t pid" as the synthetic_events file lists it (no newline). */
void ut_synth_print(const struct ut_synth_def *d, char *buf, size_t len);

/* The definition named @name among the lines of @defs ("NAME FIELDS\n"...); false if none. */
bool ut_synth_find(const char *defs, const char *name, struct ut_synth_def *d);

/* The event's format (system "synthetic", fields named, no id). */
void ut_synth_evfmt(const struct ut_synth_def *d, struct ut_evfmt *f);

/*
 * Add the synthetic events of @defs ("NAME FIELDS" lines) to probe table
 * @t at their pseudo addresses (before ut_probetab_finish).  0 or -ENOMEM.
 */
int ut_synth_add_all(struct ut_probetab *t, const char *defs);

/* The pseudo probe address records of synthetic event @name carry. */
uint64_t ut_synth_pc(const char *name);

#endif
