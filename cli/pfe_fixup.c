// SPDX-License-Identifier: MIT
/*
 * g++ 12's -fpatchable-function-entry cannot link some C++ programs: it
 * writes every function's entry of `__patchable_function_entries` with the
 * section directive of the object's FIRST function (its section object is
 * cached by name), so all of an object's entries land in one section linked
 * to that function's section and in no COMDAT group.  When the linker
 * discards a group that another object also defines (a template instance,
 * an inline constructor), the entries pointing into it are left behind:
 * "`.text._ZNSt6vector...' referenced in section `__patchable_function_entries'
 * of x.o: defined in discarded section".
 *
 * The fix-up sits between the compiler and the assembler (gcc -B DIR runs
 * DIR/as, which is this program): each entry's directive is rewritten to
 * link to the entry's own function (its .LPFE label) and, for a function in
 * a COMDAT group, to join that group ("G"), as clang and later gcc do.  The
 * linker then keeps or drops each entry with its function.  The function's
 * section is the one gcc switches back to right after the entry.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/pfe_fixup.h"

#define PFE_DIRECTIVE "\t.section\t__patchable_function_entries,\"awo\",@progbits,"

/* The lines gcc puts between an entry's directive and the switch back. */
struct pending {
	char *lines;
	size_t len, cap;
	char label[256];
	bool open;
};

static int pend_add(struct pending *p, const char *line, size_t n)
{
	if (p->len + n + 1 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		char *q;

		while (cap < p->len + n + 1)
			cap *= 2;
		q = realloc(p->lines, cap);
		if (!q)
			return -ENOMEM;
		p->lines = q;
		p->cap = cap;
	}
	memcpy(p->lines + p->len, line, n);
	p->len += n;
	return 0;
}

/* ".quad\t.LPFE3" -> ".LPFE3" into @p->label. */
static void take_label(struct pending *p, const char *line)
{
	const char *s = strstr(line, ".LPFE");
	size_t n = 0;

	if (!s)
		return;
	while (s[n] && s[n] != '\n' && s[n] != ' ' && s[n] != '\t' && n + 1 < sizeof(p->label))
		n++;
	memcpy(p->label, s, n);
	p->label[n] = '\0';
}

/* The COMDAT group of a section switch ("...,"axG",@progbits,GROUP,comdat"), or NULL. */
static const char *comdat_group(const char *line, size_t *len)
{
	const char *g = strstr(line, "G\",@progbits,");
	const char *end;

	if (!g || !strstr(line, ",comdat"))
		return NULL;
	g += strlen("G\",@progbits,");
	end = strchr(g, ',');
	if (!end)
		return NULL;
	*len = (size_t)(end - g);
	return g;
}

static bool is_switch(const char *line)
{
	return !strncmp(line, "\t.section\t", 10) || !strncmp(line, "\t.text", 6) ||
	       !strncmp(line, "\t.data", 6) || !strncmp(line, "\t.previous", 10);
}

/* Write the entry held in @p, its directive fixed by the section @line switches to. */
static void flush_entry(FILE *out, struct pending *p, const char *orig, const char *line)
{
	size_t glen = 0;
	const char *group = line ? comdat_group(line, &glen) : NULL;

	if (!p->label[0])
		fputs(orig, out);
	else if (group)
		fprintf(out, "\t.section\t__patchable_function_entries,\"awoG\",@progbits,%s,%.*s,comdat\n",
			p->label, (int)glen, group);
	else
		fprintf(out, "\t.section\t__patchable_function_entries,\"awo\",@progbits,%s\n", p->label);
	fwrite(p->lines, 1, p->len, out);
	p->len = 0;
	p->label[0] = '\0';
	p->open = false;
}

int ut_pfe_fixup(FILE *in, FILE *out)
{
	struct pending p = {0};
	char *line = NULL, *orig = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	while ((n = getline(&line, &cap, in)) > 0) {
		if (!strncmp(line, PFE_DIRECTIVE, strlen(PFE_DIRECTIVE))) {
			if (p.open)
				flush_entry(out, &p, orig, NULL);
			free(orig);
			orig = strdup(line);
			if (!orig) {
				ret = -ENOMEM;
				break;
			}
			p.open = true;
			continue;
		}
		if (p.open && !is_switch(line)) {
			take_label(&p, line);
			if (pend_add(&p, line, (size_t)n)) {
				ret = -ENOMEM;
				break;
			}
			continue;
		}
		if (p.open)
			flush_entry(out, &p, orig, line);
		fwrite(line, 1, (size_t)n, out);
	}
	if (p.open && !ret)
		flush_entry(out, &p, orig, NULL);
	free(line);
	free(orig);
	free(p.lines);
	if (!ret && (ferror(in) || ferror(out)))
		ret = -EIO;
	return ret;
}

/* The assembler gcc would have run: the first `as` in PATH that is not this program. */
static void real_as(char *buf, size_t len)
{
	char self[PATH_MAX], cand[PATH_MAX], path[PATH_MAX * 4], *saveptr = NULL;
	const char *env = getenv("PATH");

	snprintf(buf, len, "/usr/bin/as");
	if (!env || !realpath("/proc/self/exe", self))
		return;
	snprintf(path, sizeof(path), "%s", env);
	for (char *d = strtok_r(path, ":", &saveptr); d; d = strtok_r(NULL, ":", &saveptr)) {
		char real[PATH_MAX];

		snprintf(cand, sizeof(cand), "%s/as", *d ? d : ".");
		if (access(cand, X_OK) || !realpath(cand, real) || !strcmp(real, self))
			continue;
		snprintf(buf, len, "%s", cand);
		return;
	}
}

/* The assembly input among @argv: its index, or -1 for standard input. */
static int input_arg(int argc, char **argv)
{
	for (int i = argc - 1; i > 0; i--) {
		size_t n = strlen(argv[i]);

		if (argv[i][0] != '-' && n > 2 && !strcmp(argv[i] + n - 2, ".s") &&
		    strcmp(argv[i - 1], "-o") != 0)
			return i;
	}
	return -1;
}

/* Fix @argv's input (or stdin) into a temporary file @tmp; 0 or -errno. */
static int fix_input(int argc, char **argv, char *tmp, size_t len)
{
	int i = input_arg(argc, argv), fd, ret;
	FILE *in, *out;
	const char *dir = getenv("TMPDIR");

	snprintf(tmp, len, "%s/utrace-as-XXXXXX.s", dir && *dir ? dir : "/tmp");
	fd = mkstemps(tmp, 2);
	if (fd < 0)
		return -errno;
	in = i < 0 ? stdin : fopen(argv[i], "r");
	out = fdopen(fd, "w");
	if (!in || !out) {
		ret = -errno;
		if (out)
			fclose(out);
		else
			close(fd);
		unlink(tmp);
		return ret;
	}
	ret = ut_pfe_fixup(in, out);
	if (in != stdin)
		fclose(in);
	if (fclose(out) && !ret)
		ret = -EIO;
	if (ret)
		unlink(tmp);
	return ret;
}

int ut_as_main(int argc, char **argv)
{
	char as[PATH_MAX], tmp[PATH_MAX];
	char **args = calloc((size_t)argc + 2, sizeof(*args));
	int in = input_arg(argc, argv), ret, status;
	pid_t pid;

	if (!args)
		return 1;
	real_as(as, sizeof(as));
	ret = fix_input(argc, argv, tmp, sizeof(tmp));
	if (ret) {
		fprintf(stderr, "utrace (as): %s\n", strerror(-ret));
		free(args);
		return 1;
	}
	args[0] = as;
	for (int i = 1; i < argc; i++)
		args[i] = i == in ? tmp : argv[i];
	if (in < 0)
		args[argc] = tmp;
	pid = fork();
	if (pid == 0) {
		execv(as, args);
		_exit(127);
	}
	status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	unlink(tmp);
	free(args);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
