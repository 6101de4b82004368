// SPDX-License-Identifier: MIT
/*
 * Readers' side of a session's function-command table ("cmds",
 * include/utrace/abi.h): the counts the process's commands have left, for
 * the listing of set_ftrace_filter ("f:traceoff:count=1").  The file
 * belongs to another process: mapped through the sessions layer (checked),
 * and copied under its sequence count.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "reader/seqcopy.h"
#include "utrace/abi.h"
#include "utrace/read.h"

/* Copy the table once; false if a rewrite was under way or happened meanwhile. */
static bool copy_table(const struct ut_cmds *t, struct ut_cmd_entry *out, uint32_t *nr)
{
	return ut_seq_copy(&t->gen, &t->nr, UT_CMDS_MAX, t->e, sizeof(*out), out, nr);
}

long ut_live_cmds(const char *sessdir, struct ut_cmd_entry *out)
{
	char path[PATH_MAX], err[PATH_MAX + 64];
	const struct ut_cmds *t;
	uint32_t nr = 0, top = 0;
	bool ok = false;
	size_t len = 0;
	int ret;

	if (snprintf(path, sizeof(path), "%s/cmds", sessdir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = ut_sess_map_file(path, false, sizeof(*t), 0, (void **)&t, &len, err, sizeof(err));
	if (ret)
		return ret;
	if (len != sizeof(*t)) { /* the table has one size (include/utrace/abi.h) */
		munmap((void *)t, len);
		return -EINVAL;
	}
	if (__atomic_load_n(&t->magic, __ATOMIC_ACQUIRE) == UT_CMDS_MAGIC &&
	    t->version == UT_ABI_VERSION) {
		for (int tries = 0; !ok && tries < 1000; tries++) {
			ok = copy_table(t, out, &nr);
			if (!ok)
				sched_yield();
		}
	}
	munmap((void *)t, len);
	if (!ok)
		return -EAGAIN;
	/* the top level's commands: instances' are listed from their documents */
	for (uint32_t i = 0; i < nr; i++) {
		if (out[i].inst)
			continue;
		out[top] = out[i];
		out[top].func[sizeof(out[top].func) - 1] = '\0';
		out[top].module[sizeof(out[top].module) - 1] = '\0';
		top++;
	}
	return top;
}
