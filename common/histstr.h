/* SPDX-License-Identifier: MIT */
/*
 * The strings of a hist table's entry (include/utrace/abi.h: str_off,
 * str_size): a string field used as a key, a variable holding one
 * (`filenamevar=filename`) and a string saved with onmax/onchange keep
 * their text in the entry, as the kernel's tracing_map keeps them in its
 * element, so the table means the same after its process is gone.
 *
 * Sizes are the kernel's: a key of a char[N] field keeps N bytes (its
 * text up to N - 1 characters), of a __data_loc string 256 (up to 255),
 * each rounded up to 8, and a trigger's keys take at most 384 bytes in
 * all (HIST_KEY_SIZE_MAX: one dynamic string key with two numbers fits,
 * two do not); a string variable or saved string keeps 256.  The keys'
 * strings come first, in key order (their bytes, zero-padded, are
 * compared when an entry is looked up), then the variables', then the
 * saved fields'.  The runtime and the readers lay them out with the same
 * function from the trigger and the event's format.
 */
#ifndef UT_HISTSTR_H
#define UT_HISTSTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/evtrigger.h"

#define UT_HIST_STR_MAX 256      /* the kernel's STR_VAR_LEN_MAX / MAX_FILTER_STR_VAL */
#define UT_HIST_KEY_BYTES_MAX 384 /* the kernel's HIST_KEY_SIZE_MAX */

struct ut_evfmt;

/* Where an entry's strings are: offset and size within its area; size 0: a number. */
struct ut_hist_strs {
	uint16_t key_off[UT_HIST_MAX_KEYS], key_size[UT_HIST_MAX_KEYS];
	uint16_t var_off[UT_HIST_MAX_VARS], var_size[UT_HIST_MAX_VARS];
	uint16_t save_off[UT_HIST_MAX_PARAMS], save_size[UT_HIST_MAX_PARAMS];
	uint32_t keys;  /* bytes of the keys' part (compared on lookup) */
	uint32_t size;  /* bytes per entry in all; 0: no strings */
	uint32_t key_bytes; /* every key's size (numbers 8): the kernel's key size */
};

/*
 * The text at address @src (0: none) into @dst, @size bytes: up to
 * @size - 1 characters, zero-padded (a copy, not a check: the caller
 * knows the text is readable).
 */
void ut_hist_str_copy(char *dst, size_t size, uint64_t src);

/*
 * A string key: its text into @dst (ut_hist_str_copy()) and its number,
 * FNV-1a of those bytes, the same in every process and in the mount, so
 * the tables of both merge by it.
 */
uint64_t ut_hist_str_key(char *dst, size_t size, uint64_t src);

/* The bytes a string field @slot of @fmt keeps in a key (0: not a string). */
unsigned ut_hist_str_keysize(const struct ut_evfmt *fmt, int slot);

/* The layout of @t's entry strings on event @fmt (NULL: none known, no strings). */
void ut_hist_strs_layout(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
			 struct ut_hist_strs *l);

/* Whether variable @i of @t holds a string (it is a string field of @fmt). */
bool ut_hist_var_is_string(const struct ut_evtrig *t, const struct ut_evfmt *fmt, unsigned i);

/*
 * Whether param @j of action @a of @t (on @fmt) is a string: 1, 0 a
 * number, -1 not known here (a $VAR of the matched event's trigger).
 */
int ut_hist_param_is_string(const struct ut_evtrig *t, const struct ut_evfmt *fmt,
			    const struct ut_hist_action *a, unsigned j);

#endif
