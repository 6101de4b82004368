// SPDX-License-Identifier: MIT
/*
 * pdlopen [N]: built plain -O2; N times (default 1): loads
 * libpplug.<variant>.so (plain too) with dlopen, calls plug_step 7 times,
 * plug_total once, and unloads it (dlclose) unless it is the last time.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	char path[4096];
	const char *slash = strrchr(argv[0], '/'), *dot = strchr(slash ? slash : argv[0], '.');
	void *h;
	long (*step)(long), (*total)(void);
	long t = 0;

	snprintf(path, sizeof(path), "%.*slibpplug%s.so", slash ? (int)(slash - argv[0] + 1) : 0,
		 argv[0], dot ? dot : "");
	for (int k = argc > 1 ? atoi(argv[1]) : 1; k > 0; k--) {
		h = dlopen(path, RTLD_NOW);
		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		step = (long (*)(long))dlsym(h, "plug_step");
		total = (long (*)(void))dlsym(h, "plug_total");
		t = 0;
		for (int i = 0; i < 7; i++)
			t += step(i);
		t = t * 1000 + total();
		if (k > 1)
			dlclose(h);
	}
	printf("pdlopen %ld\n", t);
	return 0;
}
