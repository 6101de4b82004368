// SPDX-License-Identifier: MIT
/*
 * Names with a number in them (a session file "buf.12", "/proc/345/stat"),
 * written without snprintf: its callers run on the tracing path (built
 * with -mgeneral-regs-only: libc's formatting may touch vector registers
 * the traced function still holds) or in a signal handler.
 */
#include "libutrace/internal.h"

void ut_num_name(char *out, const char *prefix, uint32_t n, const char *suffix)
{
	char digits[12];
	int k = 0, p = 0;

	while (*prefix)
		out[p++] = *prefix++;
	do
		digits[k++] = (char)('0' + n % 10);
	while ((n /= 10));
	while (k)
		out[p++] = digits[--k];
	while (*suffix)
		out[p++] = *suffix++;
	out[p] = '\0';
}
