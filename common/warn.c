// SPDX-License-Identifier: MIT
/* Warnings for the user, to the front end's callback (common/warn.h). */
#include "common/warn.h"

#include <stdarg.h>
#include <stdio.h>

static void (*warn_fn)(const char *msg);

void ut_warn_set(void (*fn)(const char *msg))
{
	warn_fn = fn;
}

void ut_warn(const char *fmt, ...)
{
	char msg[4608];
	va_list ap;

	if (!warn_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn_fn(msg);
}
