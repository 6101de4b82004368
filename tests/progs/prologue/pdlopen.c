// SPDX-License-Identifier: MIT
/*
 * pdlopen: built plain -O2; loads libpplug.<variant>.so (plain too) with
 * dlopen and calls plug_step 7 times, plug_total once.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char path[4096];
	const char *slash = strrchr(argv[0], '/'), *dot = strchr(slash ? slash : argv[0], '.');
	void *h;
	long (*step)(long), (*total)(void);
	long t = 0;

	(void)argc;
	snprintf(path, sizeof(path), "%.*slibpplug%s.so", slash ? (int)(slash - argv[0] + 1) : 0,
		 argv[0], dot ? dot : "");
	h = dlopen(path, RTLD_NOW);
	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	step = (long (*)(long))dlsym(h, "plug_step");
	total = (long (*)(void))dlsym(h, "plug_total");
	for (int i = 0; i < 7; i++)
		t += step(i);
	printf("pdlopen %ld %ld\n", t, total());
	return 0;
}
