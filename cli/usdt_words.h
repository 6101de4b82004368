/* SPDX-License-Identifier: MIT */
/*
 * set_event words (-e) checked against the USDT probes of a set of objects
 * before anything changes: record checks the program and the libraries it
 * loads, start the objects the running processes loaded.
 */
#ifndef UT_CLI_USDT_WORDS_H
#define UT_CLI_USDT_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/elfsites.h"

/*
 * The first word of @events (blank-separated, `!` before a word ignored)
 * naming no probe of the objects in @objs, copied into @word; false if
 * every word names one.
 */
bool ut_usdt_unknown_word(const struct ut_objlist *objs, const char *events, char *word,
			  size_t len);

#endif
