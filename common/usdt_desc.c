// SPDX-License-Identifier: MIT
/* USDT argument descriptions (common/usdt_desc.h): the files, once per process. */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/usdt_desc.h"

struct desc {
	char ev[160];
	int n;
	char names[UT_USDT_MAX_ARGS][UT_USDT_NAME_MAX];
	unsigned char strings[UT_USDT_MAX_ARGS];
};

static struct desc *descs;
static size_t nr_descs;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static bool name_ok(const char *w, size_t n)
{
	if (!n || n >= UT_USDT_NAME_MAX || (w[0] >= '0' && w[0] <= '9'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(w[i] == '_' || (w[i] >= 'a' && w[i] <= 'z') || (w[i] >= 'A' && w[i] <= 'Z') ||
		      (w[i] >= '0' && w[i] <= '9')))
			return false;
	return true;
}

int ut_usdt_desc_line(const char *line, char *ev, size_t evlen,
		      char names[][UT_USDT_NAME_MAX], unsigned char *strings)
{
	const char *sep = " \t\r\n", *w = line + strspn(line, sep);
	size_t n = strcspn(w, sep);
	int k = 0;

	if (!n || *w == '#' || !memchr(w, ':', n) || n >= evlen)
		return -1;
	snprintf(ev, evlen, "%.*s", (int)n, w);
	for (w += n; *(w += strspn(w, sep)); w += n, k++) {
		const char *colon;
		size_t len;

		n = strcspn(w, sep);
		if (k >= UT_USDT_MAX_ARGS)
			return -1;
		colon = memchr(w, ':', n);
		len = colon ? (size_t)(colon - w) : n;
		strings[k] = colon != NULL;
		names[k][0] = '\0';
		if (colon && (n - len - 1 != 6 || strncmp(colon + 1, "string", 6) != 0))
			return -1; /* the only type a description gives */
		if (len == 1 && *w == '-' && !colon)
			continue;
		if (!name_ok(w, len))
			return -1;
		snprintf(names[k], UT_USDT_NAME_MAX, "%.*s", (int)len, w);
	}
	return k;
}

static const struct desc *find(const char *provider, const char *name)
{
	size_t pl = strlen(provider);

	for (size_t i = 0; i < nr_descs; i++)
		if (!strncmp(descs[i].ev, provider, pl) && descs[i].ev[pl] == ':' &&
		    !strcmp(descs[i].ev + pl + 1, name))
			return &descs[i];
	return NULL;
}

static void load_file(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	struct desc d;

	while (f && fgets(line, sizeof(line), f)) {
		struct desc *v;
		char *colon;

		memset(&d, 0, sizeof(d));
		d.n = ut_usdt_desc_line(line, d.ev, sizeof(d.ev), d.names, d.strings);
		if (d.n < 0 || !(colon = strchr(d.ev, ':')))
			continue;
		*colon = '\0';
		if (find(d.ev, colon + 1))
			continue; /* the first description wins */
		*colon = ':';
		v = realloc(descs, (nr_descs + 1) * sizeof(*v));
		if (!v)
			break;
		descs = v;
		descs[nr_descs++] = d;
	}
	if (f)
		fclose(f);
}

static void load_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	while (d && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n > 5 && !strcmp(e->d_name + n - 5, ".usdt") &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path))
			load_file(path);
	}
	if (d)
		closedir(d);
}

/* The directory of the object this code is in (the utrace binary, a library). */
static bool own_dir(char *buf, size_t len)
{
	Dl_info info;
	char *slash;
	ssize_t n = -1;

	if (dladdr((void *)own_dir, &info) && info.dli_fname && strchr(info.dli_fname, '/'))
		n = (ssize_t)snprintf(buf, len, "%s", info.dli_fname);
	else
		n = readlink("/proc/self/exe", buf, len - 1);
	if (n <= 0 || (size_t)n >= len)
		return false;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

static void load_all(void)
{
	const char *env = getenv("UTRACE_USDT_DIR");
	char dir[PATH_MAX], path[PATH_MAX + 32];

	while (env && *env) {
		size_t n = strcspn(env, ":");

		if (n && n < sizeof(dir)) {
			snprintf(dir, sizeof(dir), "%.*s", (int)n, env);
			load_dir(dir);
		}
		env += n + (env[n] == ':');
	}
	if (!own_dir(dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/share/utrace/usdt", dir);
	load_dir(path);
	snprintf(path, sizeof(path), "%s/../share/utrace/usdt", dir);
	load_dir(path);
}

void ut_usdt_describe(struct ut_usdt_list *l)
{
	pthread_once(&once, load_all);
	for (size_t i = 0; i < l->n; i++) {
		struct ut_usdt_probe *p = &l->v[i];
		const struct desc *d = find(p->provider, p->name);

		for (int k = 0; d && k < d->n && k < p->nargs; k++) {
			snprintf(p->arg[k].name, sizeof(p->arg[k].name), "%s", d->names[k]);
			p->arg[k].is_string = d->strings[k] && p->arg[k].size == 8;
		}
	}
}
