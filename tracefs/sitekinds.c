// SPDX-License-Identifier: MIT
/*
 * The functions of a process's table that have no compiler site: those a
 * process running with -O patch-prologue gives a patched prologue, and the
 * library calls it hooks with -O plt.  The runtime adds them after the
 * objects' own sites (libutrace/select.c: prologues, then library calls),
 * with their kind of site, and so does the mount, over the objects the
 * process loaded for itself (common/ownobjs.h): available_filter_functions
 * lists them with their kind, and the filter files take them as any other.
 */
#include <errno.h>
#include <libelf.h>
#include <string.h>
#include <sys/stat.h>

#include "common/ownobjs.h"
#include "common/pltsyms.h"
#include "tracefs/tracefs.h"

char tfs_runtime[PATH_MAX];

/* Only regular files are opened (no FIFO can block us). */
static bool regular(const char *path)
{
	struct stat st;

	return path[0] == '/' && !stat(path, &st) && S_ISREG(st.st_mode);
}

int tfs_other_kinds(struct ut_ftable *t, const struct ut_objlist *loaded, bool prologues,
		    bool plt)
{
	struct ut_objlist own, files = {0};
	long ret = 0;

	for (size_t i = 0; i < loaded->n && !ret; i++)
		if (regular(loaded->v[i].path))
			ret = ut_objlist_add(&files, loaded->v[i].path,
					     loaded->v[i].module[0] ? loaded->v[i].module : NULL);
	elf_version(EV_CURRENT);
	for (size_t i = 0; prologues && i < files.n && !ret; i++) {
		long n = ut_elfsites_file_prologues(t, files.v[i].path,
						    files.v[i].module[0] ? files.v[i].module : NULL);

		ret = n == -ENOMEM ? n : 0;
	}
	if (!ret && plt && files.n && !ut_own_objects(&files, tfs_runtime[0] ? tfs_runtime : NULL,
						      &own)) {
		ret = ut_pltsyms_add(t, &own, tfs_runtime[0] ? tfs_runtime : NULL);
		ut_objlist_free(&own);
	}
	ut_objlist_free(&files);
	return ret < 0 ? (int)ret : 0;
}
