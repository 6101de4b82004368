// SPDX-License-Identifier: MIT
/* The in-program API (include/utrace/utrace.h). */
#include <errno.h>
#include <stdio.h>

#include "libutrace/internal.h"
#include "utrace/utrace.h"

__attribute__((visibility("default"))) int utrace_set_tracing(int on)
{
	char err[256];
	int ret;

	if (!ut_rt.ready)
		return -ENODEV;
	pthread_mutex_lock(&ut_rt.lock);
	ut_rt.sites_off = !on;
	ret = ut_select_apply(err, sizeof(err));
	if (ret >= 0)
		ret = ut_patch_apply();
	pthread_mutex_unlock(&ut_rt.lock);
	return ret < 0 ? ret : 0;
}
