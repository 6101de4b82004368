/* SPDX-License-Identifier: MIT */
/*
 * Warnings of the reader library for the user (a binary changed since the
 * run, events lost...): handed to the front end's callback
 * (include/utrace/read.h: ut_read_set_warn), never printed here.
 */
#ifndef UT_WARN_H
#define UT_WARN_H

void ut_warn_set(void (*fn)(const char *msg));
void ut_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
