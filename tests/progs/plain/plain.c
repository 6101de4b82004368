// SPDX-License-Identifier: MIT
/* plain: not instrumented; prints a line and exits 3. */
#include <stdio.h>

int main(void)
{
	printf("plain\n");
	return 3;
}
