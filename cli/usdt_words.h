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

enum ut_usdt_word {
	UT_USDT_WORD_OK,        /* every word names a probe */
	UT_USDT_WORD_ELSEWHERE, /* a word's provider is in none of the objects: it
				 * may come with a library loaded later (dlopen) */
	UT_USDT_WORD_UNKNOWN,   /* a word names no probe of a provider that is there */
};

/*
 * Check the words of @events (blank-separated, `!` before a word ignored)
 * against the probes of the objects in @objs: the worst finding, the word
 * it is about copied into @word.
 */
enum ut_usdt_word ut_usdt_check_words(const struct ut_objlist *objs, const char *events,
				      char *word, size_t len);

/*
 * Check the event triggers @triggers (the configuration's "SYS:EVT
 * TRIGGER" lines) against the probes of @objs: each event (and
 * enable_event/disable_event's target) as a set_event word, then the
 * trigger's fields against the event's arguments.  0, 1 (a provider none
 * of @objs has: a warning), -1 (an event no object has) or -2 (a field the
 * event lacks), with the reason in @why ("'utest:nosuch' names no USDT
 * probe", "'utest:pair hist:keys=arg9': Couldn't find field").  Triggers on
 * synthetic events are left to ut_usdt_check_synth().
 */
int ut_usdt_check_triggers(const struct ut_objlist *objs, const char *triggers, char *why,
			   size_t len);

/*
 * What of @triggers needs no object: triggers on synthetic events against
 * the definitions @synth (--synth lines), onmatch().trace() actions
 * against the event they generate.  0, or -2 with @why ("'LINE': Couldn't
 * find synthetic event", "Param count doesn't match ...").
 */
int ut_usdt_check_synth(const char *triggers, const char *synth, char *why, size_t len);

#endif
