// SPDX-License-Identifier: MIT
/* The objects a traced process loaded for itself (common/ownobjs.h). */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/ownobjs.h"

#define MAX_NEEDED 64

/* One object's names as DT_NEEDED entries name it, and what it needs. */
struct deps {
	char *soname;
	char *needed[MAX_NEEDED];
	int nneeded;
	bool reached; /* scratch: in the closure being computed */
};

/* The dynamic section's strings of the file at @path: DT_SONAME and DT_NEEDED. */
static void read_deps(const char *path, struct deps *d)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(data, (int)i, &dyn) ||
			    (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME) ||
			    !(s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val)))
				continue;
			if (dyn.d_tag == DT_SONAME && !d->soname)
				d->soname = strdup(s);
			else if (dyn.d_tag == DT_NEEDED && d->nneeded < MAX_NEEDED)
				d->needed[d->nneeded++] = strdup(s);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
}

static void free_deps(struct deps *d)
{
	free(d->soname);
	for (int i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
}

/* The object of @l a DT_NEEDED @name means: by its soname, else its file name; -1 if none. */
static long needed_obj(const struct ut_objlist *l, const struct deps *d, const char *name)
{
	for (size_t i = 0; name && i < l->n; i++) {
		const char *base = strrchr(l->v[i].path, '/');

		if ((d[i].soname && !strcmp(d[i].soname, name)) || (base && !strcmp(base + 1, name)))
			return (long)i;
	}
	return -1;
}

/* Mark what @need names, transitively. */
static void reach(const struct ut_objlist *l, struct deps *d, char *const *need, int n)
{
	for (int k = 0; k < n; k++) {
		long i = needed_obj(l, d, need[k]);

		if (i < 0 || d[i].reached)
			continue;
		d[i].reached = true;
		reach(l, d, d[i].needed, d[i].nneeded);
	}
}

/* Which objects of @l only the runtime needs: @only[i]. */
static void runtime_only(const struct ut_objlist *l, struct deps *d, const char *runtime,
			 bool *only)
{
	struct deps rt = {0};

	if (runtime)
		read_deps(runtime, &rt);
	reach(l, d, rt.needed, rt.nneeded);
	for (size_t i = 0; i < l->n; i++) {
		only[i] = d[i].reached;
		d[i].reached = false;
	}
	/* the program and its own dependencies (dlopened objects are not) */
	d[0].reached = true;
	reach(l, d, d[0].needed, d[0].nneeded);
	for (size_t i = 0; i < l->n; i++)
		only[i] = (only[i] || strstr(l->v[i].path, "/libcapstone.")) && !d[i].reached;
	free_deps(&rt);
}

int ut_own_objects(const struct ut_objlist *loaded, const char *runtime, struct ut_objlist *out)
{
	struct deps *d = calloc(loaded->n + 1, sizeof(*d));
	bool *only = calloc(loaded->n + 1, sizeof(*only));
	int ret = d && only ? 0 : -ENOMEM;

	memset(out, 0, sizeof(*out));
	elf_version(EV_CURRENT);
	for (size_t i = 0; !ret && i < loaded->n; i++)
		read_deps(loaded->v[i].path, &d[i]);
	if (!ret && loaded->n)
		runtime_only(loaded, d, runtime, only);
	for (size_t i = 0; !ret && i < loaded->n; i++)
		if (!only[i])
			ret = ut_objlist_add(out, loaded->v[i].path,
					     loaded->v[i].module[0] ? loaded->v[i].module : NULL);
	for (size_t i = 0; d && i < loaded->n; i++)
		free_deps(&d[i]);
	free(d);
	free(only);
	if (ret)
		ut_objlist_free(out);
	return ret;
}
