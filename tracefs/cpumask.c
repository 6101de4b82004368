// SPDX-License-Identifier: MIT
/*
 * tracing_cpumask: the CPUs whose events are recorded.  A thread running on
 * a CPU outside the mask records nothing (libutrace/writer.c checks it per
 * event while a mask is set), and a trace_marker write from such a CPU
 * fails with EBADF, as in the kernel.
 *
 * The file has the kernel's bitmap format (SPEC §3): hex, no "0x", in
 * comma-separated groups of 32 bits, most significant first, as many bits
 * as the machine has CPUs ("3" on two).  A write naming a CPU that does not
 * exist, or a group beyond the last CPU, is EOVERFLOW; anything not hex is
 * EINVAL; 0 is allowed (nothing is recorded).  The mask covering every CPU
 * is kept as "no mask", so the processes pay nothing for it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "tracefs/tracefs.h"

/* The kernel's nr_cpu_ids: every CPU the machine may have, up to our limit. */
static unsigned nr_cpus(void)
{
	int n = get_nprocs_conf();

	if (n < 1)
		return 1;
	return (unsigned)n < UT_CFG_CPUMASK_WORDS * 64 ? (unsigned)n : UT_CFG_CPUMASK_WORDS * 64;
}

static bool mask_bit(const uint64_t *m, unsigned cpu)
{
	return m[cpu / 64] >> (cpu % 64) & 1;
}

int tfs_show_cpumask(struct tfs_req *r, FILE *f)
{
	unsigned n = nr_cpus(), groups = (n + 31) / 32;
	struct ut_cfg c;
	int ret = tfs_scope_config(r->sc, &c);

	if (ret == -ENODEV)
		return ret;
	for (unsigned g = groups; g-- > 0;) {
		unsigned bits = g == groups - 1 ? n - g * 32 : 32;
		uint32_t v = 0;

		for (unsigned b = 0; b < bits; b++)
			if (ut_cfg_cpu_wanted(&c, g * 32 + b))
				v |= 1u << b;
		fprintf(f, g == groups - 1 ? "%0*x" : ",%08x", (int)((bits + 3) / 4), v);
	}
	fputc('\n', f);
	ut_cfg_free(&c);
	return 0;
}

/* One group of up to 8 hex digits into bits 32*@g.. of @m. */
static int parse_group(const char *s, size_t len, unsigned g, unsigned n, uint64_t *m)
{
	uint64_t v = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return -EINVAL;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)s[i]) ? s[i] - '0'
								  : tolower((unsigned char)s[i]) - 'a' + 10);
	}
	if (len > 8 || (g && g * 32 >= n))
		return -EOVERFLOW;
	for (unsigned b = 0; b < 32; b++) {
		if (!(v >> b & 1))
			continue;
		if (g * 32 + b >= n)
			return -EOVERFLOW;
		m[(g * 32 + b) / 64] |= 1ull << ((g * 32 + b) % 64);
	}
	return 0;
}

struct mask_arg {
	bool all;
	uint64_t m[UT_CFG_CPUMASK_WORDS];
};

static int edit_cpumask(struct ut_cfg *c, const void *p)
{
	const struct mask_arg *a = p;

	c->cpumask_set = !a->all;
	memcpy(c->cpumask, a->m, sizeof(c->cpumask));
	return 0;
}

int tfs_store_cpumask(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct mask_arg a = {0};
	unsigned n = nr_cpus(), g = 0;
	char cmd[256];
	size_t end;
	int ret;

	(void)append;
	while (len && isspace((unsigned char)buf[len - 1]))
		len--;
	while (len && isspace((unsigned char)*buf))
		buf++, len--;
	if (!len)
		return -EINVAL;
	/* groups from the last (CPUs 0-31) to the first */
	for (end = len;; g++) {
		size_t start = end;

		while (start && buf[start - 1] != ',')
			start--;
		ret = parse_group(buf + start, end - start, g, n, a.m);
		if (ret)
			return ret;
		if (!start)
			break;
		end = start - 1;
	}
	a.all = true;
	for (unsigned cpu = 0; cpu < n; cpu++)
		a.all = a.all && mask_bit(a.m, cpu);
	snprintf(cmd, sizeof(cmd), "%.*s", (int)len, buf);
	return tfs_scope_edit(r->sc, edit_cpumask, &a, false, cmd);
}

bool tfs_cpumask_lets(const struct ut_cfg *c, int32_t tid)
{
	char path[64], line[1024];
	const char *p;
	unsigned cpu = 0;
	FILE *f;

	if (!c->cpumask_set)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return true;
	p = fgets(line, sizeof(line), f) ? strrchr(line, ')') : NULL;
	fclose(f);
	/* after "(comm)": state is field 3, processor field 39 */
	for (int field = 2; p && field < 39; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %u", &cpu) != 1)
		return true;
	return ut_cfg_cpu_wanted(c, cpu);
}
