// SPDX-License-Identifier: MIT
/*
 * dynamic_events, the kernel's generic file for dynamic events, with the one
 * kind the mount has: synthetic events (synthetic_events' list, one list for
 * the mount: the same view in processes/PID/).  The kernel's syntax:
 *
 *   s:[synthetic/]NAME FIELD[; FIELD]...   defines one (synthetic_events' parser
 *                                          and errors, carets counted in the command)
 *   -:[synthetic/]NAME                     removes it (ENOENT: none; EBUSY: in use)
 *   O_TRUNC                                removes them all first
 *   reads                                  "s:synthetic/NAME\tTYPE FIELD; ..."
 *
 * Another group than "synthetic/" in a definition is the kernel's
 * "Command must be of the form: s or -:[synthetic/]<name> ..."; other kinds
 * (p:, r:, e: probes) are EINVAL: there are no kprobes, and uprobes are not
 * built (USDT probes are found, not defined).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/synth.h"
#include "tracefs/tracefs.h"

#define E_DYN "Command must be of the form: s or -:[synthetic/]<name> field[;field] ..."

int tfs_show_dynevents(struct tfs_req *r, FILE *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = tfs_show_synth(r, m);
	fclose(m);
	for (const char *p = text; !ret && p && p < text + len; p += strcspn(p, "\n") + 1)
		fprintf(f, "s:%s/%.*s\n", UT_SYNTH_SYSTEM, (int)strcspn(p, "\n"), p);
	free(text);
	return ret;
}

/* "-:[GROUP/]NAME": the kernel's dyn_event_release() for synthetic events. */
static int release(const char *cmd)
{
	char word[128], *ev, *slash;

	snprintf(word, sizeof(word), "%.*s", (int)strcspn(cmd, " \t"), cmd);
	ev = word[0] == '-' ? (word[1] == ':' ? word + 2 : NULL) : strchr(word, ':');
	if (!ev)
		return -EINVAL;
	ev += word[0] != '-'; /* "!..:NAME": after the ':' */
	slash = strchr(ev, '/');
	if (!slash && !ev[0])
		return -EINVAL;
	if (slash) {
		*slash = 0;
		if (strcmp(ev, UT_SYNTH_SYSTEM) != 0)
			return -ENOENT;
		ev = slash + 1;
	}
	return tfs_synth_remove(ev);
}

int tfs_store_dynevents(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	static const char grp[] = UT_SYNTH_SYSTEM "/";
	char cmd[1024];
	size_t off = 2, nl;

	(void)append;
	if (tfs_strip(buf, len, cmd, sizeof(cmd)))
		return -EINVAL;
	if (!cmd[0])
		return 0;
	if (cmd[0] == '-' || cmd[0] == '!')
		return release(cmd);
	if (strncmp(cmd, "s:", 2) != 0)
		return -EINVAL; /* no other kind of dynamic event here */
	nl = strcspn(cmd, " \t");
	if (!cmd[nl]) {
		tfs_errlog_at(r->sc, "synthetic_events",
			      "Command must be of the form: <name> field[;field] ...", cmd, 0);
		return -EINVAL;
	}
	if (strchr(cmd + off, '/')) { /* the kernel looks for it in the whole rest */
		if (strncmp(cmd + off, grp, sizeof(grp) - 1) != 0) {
			tfs_errlog_at(r->sc, "synthetic_events", E_DYN, cmd, 0);
			return -EINVAL;
		}
		off += sizeof(grp) - 1;
	}
	return tfs_synth_apply(r, cmd, off);
}
