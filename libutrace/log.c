// SPDX-License-Identifier: MIT
/*
 * Diagnostics from inside the traced program: one line to stderr, formatted
 * on the stack and written with one write(2), prefixed "utrace: ".  Silenced
 * with UTRACE_QUIET=1.  Never called on the tracing path.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "libutrace/internal.h"

void ut_log(const char *fmt, ...)
{
	const char *quiet = getenv("UTRACE_QUIET");
	char buf[512];
	int saved = errno, n;
	va_list ap;

	if (quiet && *quiet == '1')
		return;
	n = snprintf(buf, sizeof(buf), "utrace: ");
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		errno = saved;
	errno = saved;
}
