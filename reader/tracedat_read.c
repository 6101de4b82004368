// SPDX-License-Identifier: MIT
/*
 * trace.dat (trace-cmd file format version 6) reader.
 *
 * ut_tracedat_open() reads the metadata, one function per section in file
 * order (docs/file-format.md): rd_file_header(), rd_ring_headers(),
 * rd_ftrace_formats(), rd_systems(), rd_kallsyms(), rd_printk(),
 * rd_cmdlines(), rd_options(), rd_flyrecord() (the per-CPU table) and
 * rd_trace_clock().  The event pages are read lazily, one page per CPU at a
 * time: load_page() checks a page, cpu_peek() walks its records, decode()
 * turns one into a struct ut_event.
 *
 * The reader never trusts a size or an offset from the file: every one is
 * checked against what is left of the file before it is used, and the first
 * inconsistency is reported with the file's name and offset.  A CPU stream
 * that turns out corrupt stops there, after every complete event before the
 * damage has been handed out.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/stream_file.h"
#include "reader/tracedat.h"
#include "reader/tracedat_compress.h"
#include "reader/tracedat_format.h"
#include "common/procevents.h"
#include "common/usdt_events.h"

struct td_rcpu {
	uint64_t start, size;    /* the stream's place in the file */
	uint64_t next;           /* file offset of the next page to load */
	uint64_t page_off;       /* file offset of the loaded page */
	unsigned char *page;
	uint32_t commit, pos;    /* data bytes in the page; parse position */
	bool loaded, done;
	uint64_t ts;
	uint64_t lost;           /* to report with the next event */
	bool has_ev;             /* ev holds the CPU's next event */
	struct ut_event ev;
	uint64_t ev_lost;
	char *err;               /* why the stream stopped early, NULL if it did not */
	char *str;               /* ev.str storage */
	uint64_t *callers;       /* ev.callers storage */
	struct td_zstream *z;    /* version 7, compressed: start/size/next count plain bytes */
};

struct td_pid {
	int32_t pid;
	int32_t val;             /* tgid */
	char *comm;
};

struct ut_tracedat {
	char *path;
	int fd;
	uint64_t fsize;
	uint64_t pos;            /* header parse position */
	uint32_t page_size;
	int nr_cpus;
	struct td_rcpu *cpu;
	struct ut_symtab *syms;
	struct td_pid *comms, *tgids;
	size_t nr_comms, nr_tgids;
	char clock[64];
	char *uname;
	char tracer[32];
	uint64_t lost_total;
	uint64_t options;
	bool has_options;
	bool have_clock;         /* the TRACECLOCK option: trace_clock follows the CPU table */
	uint64_t table_cpus;     /* CPUs in the flyrecord table */
	/* event id -> UT_EV_* for the ftrace formats found in the file */
	struct { uint16_t id, type; } idmap[TD_MAX_FORMATS];
	size_t nr_idmap;
	/* USDT probes' events (systems of their providers: common/usdt_events.h) */
	struct ut_evfmt *probes;
	size_t nr_probes;
	/* process events' ids in the file -> theirs (common/procevents.h) */
	struct { uint16_t id, pev; } pevmap[UT_PEV_END - UT_PEV_FIRST];
	size_t nr_pevmap;
	/* funcgraph_exit has `retval` (CONFIG_FUNCTION_GRAPH_RETVAL): fields move by 8 */
	bool exit_retval;
	bool failed;
	char errmsg[256];
	/* ut_tracedat_next(): the CPUs merged by the library's stream */
	struct ut_file_src *merge;
	struct ut_stream *merge_st;
	/* version 7 */
	int version;
	bool compressed;         /* the file names a compressor (sections may use it) */
	uint64_t opt_off;        /* the first options section */
	uint64_t sec_off[TD_NR_META_SECTIONS]; /* 0: not in the file */
	const unsigned char *mem; /* a decompressed section being parsed: rd() reads it */
	uint64_t mem_at;         /* the section's file offset, for messages */
	uint64_t opt_next;       /* the next options section, from the DONE option */
	bool clock_text;         /* the TRACECLOCK option carried the trace_clock line */
	bool have_buffer;        /* the BUFFER option of the top instance was seen */
	uint64_t buf_off;        /* its section */
	struct td_bcpu { uint32_t cpu; uint64_t off, size; } *bcpu;
	size_t nr_bcpu;
};

static void rd_err(struct ut_tracedat *r, const char *what, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record "<file>: corrupt <what> at offset 0x..: <why>" as the reader's error. */
static void rd_err(struct ut_tracedat *r, const char *what, uint64_t off, const char *fmt, ...)
{
	char why[160];
	va_list ap;

	if (r->failed)
		return; /* the first inconsistency is the one worth reporting */
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (r->mem)
		snprintf(r->errmsg, sizeof(r->errmsg),
			 "%s: corrupt %s in the compressed section at offset 0x%llx (byte 0x%llx of it): %s",
			 r->path, what, (unsigned long long)r->mem_at, (unsigned long long)off, why);
	else
		snprintf(r->errmsg, sizeof(r->errmsg), "%s: corrupt %s at offset 0x%llx: %s",
			 r->path, what, (unsigned long long)off, why);
	r->failed = true;
}

/* Read @n header bytes at the parse position; a short file is an error. */
static int rd(struct ut_tracedat *r, void *buf, size_t n, const char *what)
{
	size_t done = 0;

	if (n > r->fsize || r->pos > r->fsize - n) {
		rd_err(r, what, r->pos, "%s ends at 0x%llx", r->mem ? "section" : "file",
		       (unsigned long long)r->fsize);
		return -1;
	}
	if (r->mem) {
		memcpy(buf, r->mem + r->pos, n);
		r->pos += n;
		return 0;
	}
	while (done < n) {
		ssize_t got = pread(r->fd, (char *)buf + done, n - done, (off_t)(r->pos + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rd_err(r, what, r->pos + done, "%s",
			       got < 0 ? strerror(errno) : "unexpected end of file");
			return -1;
		}
		done += (size_t)got;
	}
	r->pos += n;
	return 0;
}

static int rd_num(struct ut_tracedat *r, uint64_t *v, int n, const char *what)
{
	unsigned char tmp[8];

	if (rd(r, tmp, (size_t)n, what))
		return -1;
	*v = td_get_le(tmp, n);
	return 0;
}

/* Read a @size byte blob whose size came from the file: checked first. */
static char *rd_blob(struct ut_tracedat *r, uint64_t size, const char *what)
{
	char *p;

	if (size > r->fsize - r->pos) {
		rd_err(r, what, r->pos, "size %llu goes past the end of the file",
		       (unsigned long long)size);
		return NULL;
	}
	p = malloc((size_t)size + 1);
	if (!p) {
		rd_err(r, what, r->pos, "out of memory for %llu bytes", (unsigned long long)size);
		return NULL;
	}
	if (rd(r, p, (size_t)size, what)) {
		free(p);
		return NULL;
	}
	p[size] = 0;
	return p;
}

static int rd_skip(struct ut_tracedat *r, uint64_t size, const char *what)
{
	if (size > r->fsize - r->pos) {
		rd_err(r, what, r->pos, "size %llu goes past the end of the file",
		       (unsigned long long)size);
		return -1;
	}
	r->pos += size;
	return 0;
}

/* A NUL-terminated string of at most @max bytes (event system names). */
static int rd_cstr(struct ut_tracedat *r, char *out, size_t max, const char *what)
{
	uint64_t start = r->pos;

	for (size_t i = 0; i < max; i++) {
		if (rd(r, &out[i], 1, what))
			return -1;
		if (!out[i])
			return 0;
	}
	rd_err(r, what, start, "unterminated string");
	return -1;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct td_pid *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static const struct td_pid *find_pid(const struct td_pid *v, size_t n, int32_t pid)
{
	struct td_pid key = { .pid = pid };

	if (!n)
		return NULL;
	return bsearch(&key, v, n, sizeof(*v), cmp_pid);
}

/*
 * "pid text" lines.  With @comm, text is a task name (saved_cmdlines), else
 * a tgid (saved_tgids).  Malformed lines are skipped: they are not fatal.
 */
static int parse_pid_lines(char *text, struct td_pid **out, size_t *nr, bool comm)
{
	struct td_pid *v = NULL;
	size_t n = 0, cap = 0;
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end;
		long pid = strtol(line, &end, 10);
		long val = 0;

		if (end == line || *end != ' ' || pid < INT32_MIN || pid > INT32_MAX)
			continue;
		end++;
		if (!comm) {
			char *e2;

			val = strtol(end, &e2, 10);
			if (e2 == end || val < INT32_MIN || val > INT32_MAX)
				continue;
		} else if (!*end) {
			continue;
		}
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct td_pid *nv = realloc(v, ncap * sizeof(*nv));

			if (!nv)
				goto nomem;
			v = nv;
			cap = ncap;
		}
		v[n].pid = (int32_t)pid;
		v[n].val = (int32_t)val;
		v[n].comm = NULL;
		if (comm && !(v[n].comm = strdup(end)))
			goto nomem;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_pid);
	*out = v;
	*nr = n;
	return 0;
nomem:
	for (size_t i = 0; i < n; i++)
		free(v[i].comm);
	free(v);
	return -1;
}

/* kallsyms text ("addr type name[\tmodule]" lines) into r->syms. */
static int parse_kallsyms(struct ut_tracedat *r, char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *name, *mod = NULL, *tab;
		unsigned long long addr;

		errno = 0;
		addr = strtoull(line, &end, 16);
		if (end == line || errno || end[0] != ' ' || !end[1] || end[2] != ' ')
			continue;
		name = end + 3;
		tab = strchr(name, '\t');
		if (tab) {
			*tab = 0;
			mod = tab + 1;
			if (*mod == '[') {
				size_t l = strlen(++mod);

				if (l && mod[l - 1] == ']')
					mod[l - 1] = 0;
			}
			if (!*mod)
				mod = NULL;
		}
		if (!*name || (!mod && !strcmp(name, TD_END_SYM)))
			continue;
		if (ut_symtab_add(r->syms, addr, 0, name, mod))
			return -1;
	}
	ut_symtab_finish(r->syms);
	return 0;
}

/* A USDT probe's format (another system than ftrace and utrace): kept if it is one. */
static void parse_probe_format(struct ut_tracedat *r, const char *system, const char *text)
{
	struct ut_evfmt f, *v;

	if (ut_evfmt_parse(&f, system, text) || r->nr_probes >= UT_EV_PROBE_MAX_IDS)
		return;
	for (size_t i = 0; i < r->nr_probes; i++)
		if (r->probes[i].id == f.id)
			return;
	v = realloc(r->probes, (r->nr_probes + 1) * sizeof(*v));
	if (!v)
		return;
	r->probes = v;
	r->probes[r->nr_probes++] = f;
}

/* A process event's format (sched, signal, utrace systems): its id mapped; false if not one. */
static bool parse_pev_format(struct ut_tracedat *r, const char *system, const char *text)
{
	const char *id = strstr(text, "\nID: ");
	const struct ut_procev *e;
	char name[64];
	long v;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(text + 6, "\n"), text + 6);
	e = ut_procev_find(system, name);
	if (!e || e->id < UT_PEV_FIRST || !id)
		return false;
	v = strtol(id + 5, NULL, 10);
	if (v <= 0 || v > 65535 || r->nr_pevmap >= UT_PEV_END - UT_PEV_FIRST)
		return true;
	for (size_t j = 0; j < r->nr_pevmap; j++)
		if (r->pevmap[j].pev == e->id)
			return true;
	r->pevmap[r->nr_pevmap].id = (uint16_t)v;
	r->pevmap[r->nr_pevmap++].pev = e->id;
	return true;
}

/* "name: X" and "ID: N" of a format of @system (NULL: ftrace): map the ids we decode. */
static void parse_format(struct ut_tracedat *r, const char *system, const char *text)
{
	const char *n = strstr(text, "name: "), *id = strstr(text, "\nID: ");
	size_t len;
	long v;

	if (!n || !id || n != text)
		return;
	if (system && parse_pev_format(r, system, text))
		return;
	if (system && strcmp(system, "utrace") != 0) {
		parse_probe_format(r, system, text);
		return;
	}
	n += 6;
	len = strcspn(n, "\n");
	v = strtol(id + 5, NULL, 10);
	if (v <= 0 || v > 65535)
		return;
	for (size_t i = 0; i < td_nr_formats; i++) {
		if (strlen(td_formats[i].name) != len || strncmp(td_formats[i].name, n, len) != 0)
			continue;
		if (!td_formats[i].system != !system ||
		    (system && strcmp(td_formats[i].system, system) != 0))
			continue;
		for (size_t j = 0; j < r->nr_idmap; j++)
			if (r->idmap[j].type == td_formats[i].type)
				return;
		r->idmap[r->nr_idmap].id = (uint16_t)v;
		r->idmap[r->nr_idmap].type = td_formats[i].type;
		r->nr_idmap++;
		if (td_formats[i].type == UT_EV_FUNCGRAPH_EXIT)
			r->exit_retval = strstr(text, "\tfield:unsigned long retval;\toffset:16;") != NULL;
		return;
	}
}

static void parse_clock(struct ut_tracedat *r, const char *text)
{
	const char *open = strchr(text, '['), *close;
	size_t len;

	if (!open)
		return;
	close = strchr(open, ']');
	if (!close)
		return;
	len = (size_t)(close - open - 1);
	if (!len || len >= sizeof(r->clock))
		return;
	memcpy(r->clock, open + 1, len);
	r->clock[len] = 0;
}

/* Version 7's rest of the header: the compressor's name and version, where the options are. */
static int rd_v7_header(struct ut_tracedat *r)
{
	char name[64], ver[64];

	if (rd_cstr(r, name, sizeof(name), "compression name") ||
	    rd_cstr(r, ver, sizeof(ver), "compression version") ||
	    rd_num(r, &r->opt_off, 8, "options offset"))
		return -1;
	if (strcmp(name, "none") != 0 && strcmp(name, TD_Z_NAME) != 0) {
		rd_err(r, "compression name", 0, "compression \"%s\" is not supported (only zstd)",
		       name);
		return -1;
	}
	r->compressed = strcmp(name, "none") != 0;
	if (!r->opt_off) {
		rd_err(r, "options offset", r->pos - 8,
		       "0: the file was not finished (its writer stopped before the end)");
		return -1;
	}
	return 0;
}

/* Section: magic, version "6" or "7", endianness, sizeof(long), page size. */
static int rd_file_header(struct ut_tracedat *r)
{
	unsigned char b[16];
	uint64_t v;

	if (rd(r, b, 10, "file header"))
		return -1;
	if (memcmp(b, td_magic, 10) != 0) {
		rd_err(r, "file header", 0, "not a trace.dat file (bad magic)");
		return -1;
	}
	if (rd_cstr(r, (char *)b, 16, "version string"))
		return -1;
	if (strcmp((char *)b, "6") != 0 && strcmp((char *)b, "7") != 0) {
		rd_err(r, "version string", 10, "file version \"%.8s\" is not supported (only 6 and 7)",
		       (char *)b);
		return -1;
	}
	r->version = b[0] - '0';
	if (rd(r, b, 2, "file header"))
		return -1;
	if (b[0] != 0 || b[1] != 8) {
		rd_err(r, "file header", r->pos - 2,
		       "only little-endian files with 8-byte longs are supported (endian %u, long %u)",
		       b[0], b[1]);
		return -1;
	}
	if (rd_num(r, &v, 4, "page size"))
		return -1;
	if (v < 256 || v > (1U << 20) || (v & (v - 1))) {
		rd_err(r, "page size", r->pos - 4, "bad page size %llu", (unsigned long long)v);
		return -1;
	}
	r->page_size = (uint32_t)v;
	return r->version == 7 ? rd_v7_header(r) : 0;
}

/* A tag (@tag with its NUL), then a u64 size and that many bytes, skipped. */
static int rd_tagged_text(struct ut_tracedat *r, const char *tag)
{
	size_t n = strlen(tag) + 1;
	unsigned char b[16];
	uint64_t size;

	if (rd(r, b, n, tag) || memcmp(b, tag, n) != 0) {
		if (!r->failed)
			rd_err(r, tag, r->pos - n, "missing %s tag", tag);
		return -1;
	}
	if (rd_num(r, &size, 8, tag) || rd_skip(r, size, tag))
		return -1;
	return 0;
}

/* Section: header_page and header_event (our layout is the kernel's: skipped). */
static int rd_ring_headers(struct ut_tracedat *r)
{
	if (rd_tagged_text(r, "header_page") || rd_tagged_text(r, "header_event"))
		return -1;
	return 0;
}

/* @n formats of @system (NULL: ftrace), each a u64 size and its text. */
static int rd_format_list(struct ut_tracedat *r, const char *system, uint64_t n,
			  const char *what)
{
	uint64_t size;
	char *text;

	/* each iteration consumes bytes, so the end of the file bounds a bogus @n */
	for (uint64_t i = 0; i < n; i++) {
		if (rd_num(r, &size, 8, what))
			return -1;
		text = rd_blob(r, size, what);
		if (!text)
			return -1;
		parse_format(r, system, text);
		free(text);
	}
	return 0;
}

/* Section: the ftrace event formats. */
static int rd_ftrace_formats(struct ut_tracedat *r)
{
	uint64_t n;

	if (rd_num(r, &n, 4, "ftrace formats"))
		return -1;
	return rd_format_list(r, NULL, n, "ftrace format");
}

/* Section: the other event systems, each a name, a u32 count and its formats. */
static int rd_systems(struct ut_tracedat *r)
{
	uint64_t n, nev;
	char sys[256];

	if (rd_num(r, &n, 4, "event systems"))
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		if (rd_cstr(r, sys, sizeof(sys), "event system name") ||
		    rd_num(r, &nev, 4, "event system") ||
		    rd_format_list(r, sys, nev, "event format"))
			return -1;
	}
	return 0;
}

/*
 * A section of text: a @bytes-byte size, then the text, given to @parse
 * (nonzero: out of memory).  0 or -1 with the error set.
 */
static int rd_text_section(struct ut_tracedat *r, int bytes, const char *what,
			   int (*parse)(struct ut_tracedat *r, char *text))
{
	uint64_t size, at;
	char *text;
	int ret;

	if (rd_num(r, &size, bytes, what))
		return -1;
	text = rd_blob(r, size, what);
	if (!text)
		return -1;
	at = r->pos;
	ret = parse(r, text);
	free(text);
	if (ret)
		rd_err(r, what, at, "out of memory");
	return ret ? -1 : 0;
}

/* Section: kallsyms, a u32 size and /proc/kallsyms lines. */
static int rd_kallsyms(struct ut_tracedat *r)
{
	return rd_text_section(r, 4, "kallsyms", parse_kallsyms);
}

/* Section: trace_printk formats (utrace's events print none: skipped). */
static int rd_printk(struct ut_tracedat *r)
{
	uint64_t size;

	if (rd_num(r, &size, 4, "printk formats") || rd_skip(r, size, "printk formats"))
		return -1;
	return 0;
}

static int parse_cmdlines(struct ut_tracedat *r, char *text)
{
	return parse_pid_lines(text, &r->comms, &r->nr_comms, true);
}

/* Section: saved cmdlines, a u64 size and "pid comm" lines. */
static int rd_cmdlines(struct ut_tracedat *r)
{
	return rd_text_section(r, 8, "saved cmdlines", parse_cmdlines);
}

/* UT_TRACEDAT_OPT_INFO: "tracer NAME\nlost N\noptions HEX\n" (NUL-terminated by rd_blob). */
static void opt_info(struct ut_tracedat *r, const char *text)
{
	unsigned long long v;
	const char *l = strstr(text, "lost ");

	if (sscanf(text, "tracer %31s", r->tracer) != 1)
		r->tracer[0] = '\0';
	if (l && sscanf(l, "lost %llu", &v) == 1)
		r->lost_total = v;
	l = strstr(text, "options ");
	if (l && sscanf(l, "options %llx", &v) == 1) {
		r->options = v;
		r->has_options = true;
	}
}

/* A u32/u64 or a string of the BUFFER option's @p (@n bytes), at *@at; false past its end. */
static bool opt_field(const unsigned char *p, uint64_t n, uint64_t *at, int bytes, uint64_t *v)
{
	if (n < (uint64_t)bytes || *at > n - (uint64_t)bytes)
		return false;
	*v = td_get_le(p + *at, bytes);
	*at += (uint64_t)bytes;
	return true;
}

static const char *opt_string(const unsigned char *p, uint64_t n, uint64_t *at)
{
	const unsigned char *nul = *at < n ? memchr(p + *at, 0, n - *at) : NULL;
	const char *s = (const char *)p + *at;

	if (!nul)
		return NULL;
	*at = (uint64_t)(nul - p) + 1;
	return s;
}

/*
 * Version 7's BUFFER option: the data section, the instance ("" for the
 * top one; others are skipped), its clock, page size and each CPU's place.
 */
static int opt_buffer(struct ut_tracedat *r, const unsigned char *p, uint64_t n, uint64_t at)
{
	uint64_t pos = 0, off, psize, count;
	const char *name, *clock;

	if (!opt_field(p, n, &pos, 8, &off) || !(name = opt_string(p, n, &pos)) ||
	    !(clock = opt_string(p, n, &pos)) || !opt_field(p, n, &pos, 4, &psize) ||
	    !opt_field(p, n, &pos, 4, &count)) {
		rd_err(r, "buffer option", at, "cut short");
		return -1;
	}
	if (*name)
		return 0; /* another instance's buffer */
	if (psize != r->page_size || r->have_buffer || count > (n - pos) / 20) {
		rd_err(r, "buffer option", at, "page size %llu, %llu CPUs in %llu bytes%s",
		       (unsigned long long)psize, (unsigned long long)count, (unsigned long long)n,
		       r->have_buffer ? ", a second top buffer" : "");
		return -1;
	}
	if (!r->clock_text && *clock && strlen(clock) < sizeof(r->clock))
		snprintf(r->clock, sizeof(r->clock), "%s", clock);
	r->bcpu = calloc(count ? count : 1, sizeof(*r->bcpu));
	if (!r->bcpu) {
		rd_err(r, "buffer option", at, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < count; i++) {
		struct td_bcpu *b = &r->bcpu[i];
		uint64_t cpu = 0;
		/* count was checked against the option's size: these fit */
		bool ok = opt_field(p, n, &pos, 4, &cpu) && opt_field(p, n, &pos, 8, &b->off) &&
			  opt_field(p, n, &pos, 8, &b->size);

		b->cpu = (uint32_t)cpu;
		if (!ok || cpu >= TD_MAX_CPUS || b->size > UINT64_MAX - b->off) {
			rd_err(r, "buffer option", at, "CPU %llu: bad CPU or offset + size overflows",
			       (unsigned long long)cpu);
			return -1;
		}
	}
	r->nr_bcpu = (size_t)count;
	r->buf_off = off;
	r->have_buffer = true;
	return 0;
}

/* Version 7's own options: the sections' offsets, the buffer, the end of the list. */
static int opt_v7(struct ut_tracedat *r, uint64_t id, uint64_t size, const unsigned char *p,
		  uint64_t at)
{
	if (id >= TD_OPT_HEADER_INFO && id < TD_OPT_HEADER_INFO + TD_NR_META_SECTIONS) {
		if (size < 8) {
			rd_err(r, "section option", at, "size %llu < 8", (unsigned long long)size);
			return -1;
		}
		r->sec_off[id - TD_OPT_HEADER_INFO] = td_get_le(p, 8);
	} else if (id == TD_OPT_BUFFER) {
		return opt_buffer(r, p, size, at);
	}
	return 0;
}

/* One option (@id, @size bytes of @text, at file offset @at) into the reader. */
static int opt_apply(struct ut_tracedat *r, uint64_t id, uint64_t size, char *text, uint64_t at)
{
	switch (id) {
	case TD_OPT_TRACECLOCK:
		r->have_clock = true;
		if (r->version == 7 && size) { /* version 7 carries the text itself */
			parse_clock(r, text);
			r->clock_text = true;
		}
		break;
	case TD_OPT_UNAME:
		free(r->uname);
		r->uname = strdup(text);
		break;
	case UT_TRACEDAT_OPT_INFO:
		opt_info(r, text);
		break;
	case TD_OPT_CPUCOUNT:
		if (size < 4) {
			rd_err(r, "CPU count option", at, "size %llu < 4", (unsigned long long)size);
			return -1;
		}
		/* trace-cmd sizes the CPU table by this when present */
		r->table_cpus = td_get_le((unsigned char *)text, 4);
		break;
	case UT_TRACEDAT_OPT_TGIDS:
		free(r->tgids);
		r->tgids = NULL;
		r->nr_tgids = 0;
		if (parse_pid_lines(text, &r->tgids, &r->nr_tgids, false)) {
			rd_err(r, "tgid option", at, "out of memory");
			return -1;
		}
		break;
	default:
		if (r->version == 7)
			return opt_v7(r, id, size, (unsigned char *)text, at);
		break; /* unknown options are skipped, as trace-cmd does */
	}
	return 0;
}

/*
 * Sections: the CPU count, then (optional) the options, each a u16 id, a
 * u32 size and its data, up to TD_OPT_DONE.  Leaves the next section's tag
 * in @tag.
 */
static int rd_options(struct ut_tracedat *r, unsigned char tag[10])
{
	uint64_t id, size, at;
	char *text;
	int ret;

	if (rd_num(r, &r->table_cpus, 4, "CPU count") || rd(r, tag, 10, "section tag"))
		return -1;
	if (memcmp(tag, "options  ", 10) != 0)
		return 0;
	for (;;) {
		if (rd_num(r, &id, 2, "option"))
			return -1;
		if (id == TD_OPT_DONE)
			break;
		at = r->pos - 2;
		if (rd_num(r, &size, 4, "option"))
			return -1;
		text = rd_blob(r, size, "option");
		if (!text)
			return -1;
		ret = opt_apply(r, id, size, text, at);
		free(text);
		if (ret)
			return ret;
	}
	return rd(r, tag, 10, "section tag");
}

/* Section: "flyrecord" and the per-CPU (offset, size) table. */
static int rd_flyrecord(struct ut_tracedat *r, const unsigned char tag[10])
{
	uint64_t nr_cpus = r->table_cpus;

	if (memcmp(tag, "flyrecord", 10) != 0) {
		rd_err(r, "section tag", r->pos - 10, "expected \"flyrecord\" (latency files are not supported)");
		return -1;
	}
	/* each CPU needs 16 table bytes: a bogus count fails here */
	if (nr_cpus > TD_MAX_CPUS || nr_cpus * 16 > r->fsize - r->pos) {
		rd_err(r, "CPU table", r->pos, "%llu CPUs do not fit in the file",
		       (unsigned long long)nr_cpus);
		return -1;
	}
	r->nr_cpus = (int)nr_cpus;
	r->cpu = calloc(nr_cpus ? nr_cpus : 1, sizeof(*r->cpu));
	if (!r->cpu) {
		rd_err(r, "CPU table", r->pos, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < nr_cpus; i++) {
		struct td_rcpu *c = &r->cpu[i];
		uint64_t at = r->pos;

		if (rd_num(r, &c->start, 8, "CPU table") || rd_num(r, &c->size, 8, "CPU table"))
			return -1;
		if (c->size > UINT64_MAX - c->start) {
			rd_err(r, "CPU table", at, "CPU %llu: offset + size overflows",
			       (unsigned long long)i);
			return -1;
		}
		/*
		 * A stream running past the end of the file is not refused
		 * here: its complete pages are still worth reading, and the
		 * cut is reported when the reader gets there.
		 */
		c->next = c->start;
		c->done = c->size == 0;
	}
	return 0;
}

static int parse_clock_text(struct ut_tracedat *r, char *text)
{
	parse_clock(r, text);
	return 0;
}

/* Section: the trace_clock text, present when the TRACECLOCK option said so. */
static int rd_trace_clock(struct ut_tracedat *r)
{
	return r->have_clock ? rd_text_section(r, 8, "trace_clock", parse_clock_text) : 0;
}

/* --- version 7: sections found by offset ------------------------------------ */

/* The section header at @off (id @want); its flags and size, with r->pos at its body. */
static int rd_sec_hdr(struct ut_tracedat *r, uint64_t off, unsigned want, uint64_t *flags,
		      uint64_t *size, const char *what)
{
	uint64_t id, desc;

	if (off > r->fsize) {
		rd_err(r, what, off, "section past the end of the file (0x%llx)",
		       (unsigned long long)r->fsize);
		return -1;
	}
	r->pos = off;
	if (rd_num(r, &id, 2, what) || rd_num(r, flags, 2, what) || rd_num(r, &desc, 4, what) ||
	    rd_num(r, size, 8, what))
		return -1;
	if (id != want) {
		rd_err(r, what, off, "section id %llu, expected %u", (unsigned long long)id, want);
		return -1;
	}
	/* the data section of a cut file is still read, up to its last whole chunk */
	if (*size > r->fsize - r->pos && want != TD_OPT_BUFFER) {
		rd_err(r, what, off, "size %llu goes past the end of the file",
		       (unsigned long long)*size);
		return -1;
	}
	return 0;
}

/* @parse over the body at r->pos (@size bytes), decompressed first when @flags say so. */
static int rd_sec_body(struct ut_tracedat *r, uint64_t at, uint64_t flags, uint64_t size,
		       int (*parse)(struct ut_tracedat *r), const char *what)
{
	uint64_t fsize = r->fsize, plain = 0;
	unsigned char *buf;
	char why[160];
	int ret;

	if (!(flags & TD_SEC_COMPRESSED))
		return parse(r);
	if (!r->compressed) {
		rd_err(r, what, at, "a compressed section in a file that names no compression");
		return -1;
	}
	buf = td_z_section(r->fd, r->fsize, r->pos, size, &plain, why, sizeof(why));
	if (!buf) {
		rd_err(r, what, at, "%s", why);
		return -1;
	}
	r->mem = buf;
	r->mem_at = at;
	r->fsize = plain;
	r->pos = 0;
	ret = parse(r);
	r->mem = NULL;
	r->fsize = fsize;
	free(buf);
	return ret;
}

/* An options section's body: options up to DONE, whose u64 is the next section. */
static int rd_v7_options(struct ut_tracedat *r)
{
	uint64_t id, size, at;
	char *text;
	int ret;

	for (;;) {
		at = r->pos;
		if (rd_num(r, &id, 2, "option") || rd_num(r, &size, 4, "option"))
			return -1;
		text = rd_blob(r, size, "option");
		if (!text)
			return -1;
		if (id == TD_OPT_DONE) {
			r->opt_next = size >= 8 ? td_get_le((unsigned char *)text, 8) : 0;
			free(text);
			return 0;
		}
		ret = opt_apply(r, id, size, text, at);
		free(text);
		if (ret)
			return ret;
	}
}

/* Each CPU of the BUFFER option: its pages, or its chunks when the section is compressed. */
static int rd_v7_cpus(struct ut_tracedat *r)
{
	uint64_t flags = 0, size, n = r->table_cpus;
	char why[160];

	if (!r->have_buffer) {
		rd_err(r, "options", r->opt_off, "no buffer option: the file holds no trace data");
		return -1;
	}
	if (r->nr_bcpu && rd_sec_hdr(r, r->buf_off, TD_OPT_BUFFER, &flags, &size, "buffer section"))
		return -1;
	for (size_t i = 0; i < r->nr_bcpu; i++)
		if (r->bcpu[i].cpu >= n)
			n = r->bcpu[i].cpu + 1ULL;
	if (n > TD_MAX_CPUS)
		n = TD_MAX_CPUS;
	r->nr_cpus = (int)n;
	r->cpu = calloc(n ? n : 1, sizeof(*r->cpu));
	if (!r->cpu) {
		rd_err(r, "buffer option", r->opt_off, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < r->nr_bcpu; i++) {
		struct td_rcpu *c = &r->cpu[r->bcpu[i].cpu];

		if (c->z || c->size) {
			rd_err(r, "buffer option", r->opt_off, "CPU %u listed twice", r->bcpu[i].cpu);
			return -1;
		}
		c->start = c->next = r->bcpu[i].off;
		c->size = r->bcpu[i].size;
		if (flags & TD_SEC_COMPRESSED) {
			c->z = calloc(1, sizeof(*c->z));
			if (!c->z || td_zstream_open(c->z, r->fd, r->fsize, c->start, c->size,
						     r->page_size, why, sizeof(why))) {
				rd_err(r, "buffer option", r->opt_off, "out of memory");
				return -1;
			}
			c->start = c->next = 0;
			c->size = c->z->plain;
		}
		c->done = c->size == 0 && !(c->z && c->z->cut);
	}
	for (uint64_t i = 0; i < n; i++)
		r->cpu[i].done |= !r->cpu[i].size && !r->cpu[i].z;
	return 0;
}

/* Version 7: the options sections in turn, then the metadata sections they point to. */
static int read_v7(struct ut_tracedat *r)
{
	static int (*const parse[TD_NR_META_SECTIONS])(struct ut_tracedat *) = {
		rd_ring_headers, rd_ftrace_formats, rd_systems, rd_kallsyms, rd_printk,
		rd_cmdlines};
	static const char *const name[TD_NR_META_SECTIONS] = {
		"header info", "ftrace formats", "event formats", "kallsyms", "printk formats",
		"saved cmdlines"};
	uint64_t off = r->opt_off, flags, size;

	for (int k = 0; off; k++) {
		if (k == 64) {
			rd_err(r, "options section", off, "more than 64 options sections (a loop?)");
			return -1;
		}
		r->opt_next = 0;
		if (rd_sec_hdr(r, off, TD_OPT_DONE, &flags, &size, "options section") ||
		    rd_sec_body(r, off, flags, size, rd_v7_options, "options section"))
			return -1;
		off = r->opt_next;
	}
	for (int i = 0; i < TD_NR_META_SECTIONS; i++) {
		if (!r->sec_off[i]) {
			if (i < 2) { /* without these no record can be decoded */
				rd_err(r, name[i], r->opt_off, "no %s section", name[i]);
				return -1;
			}
			continue;
		}
		if (rd_sec_hdr(r, r->sec_off[i], TD_OPT_HEADER_INFO + (unsigned)i, &flags, &size,
			       name[i]) ||
		    rd_sec_body(r, r->sec_off[i], flags, size, parse[i], name[i]))
			return -1;
	}
	return rd_v7_cpus(r);
}

/* All the metadata, section by section, in file order. */
static int read_headers(struct ut_tracedat *r)
{
	unsigned char tag[10];

	if (rd_file_header(r))
		return -1;
	if (r->version == 7)
		return read_v7(r);
	if (rd_ring_headers(r) || rd_ftrace_formats(r) || rd_systems(r) ||
	    rd_kallsyms(r) || rd_printk(r) || rd_cmdlines(r) || rd_options(r, tag) ||
	    rd_flyrecord(r, tag) || rd_trace_clock(r))
		return -1;
	return 0;
}

/**
 * ut_tracedat_open() - open a trace.dat file for reading
 * @path: the file
 * @err: receives a message (naming the bad offset) on failure
 * @errlen: size of @err
 *
 * Reads and checks all the metadata; the event pages are read lazily.
 *
 * Return: the reader, or NULL.
 */
struct ut_tracedat *ut_tracedat_open(const char *path, char *err, size_t errlen)
{
	struct ut_tracedat *r = calloc(1, sizeof(*r));
	struct stat st;

	if (!r) {
		td_set_err(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	r->fd = -1;
	strcpy(r->clock, "local");
	r->path = strdup(path);
	r->syms = ut_symtab_new();
	if (!r->path || !r->syms) {
		td_set_err(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		td_set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	r->fsize = (uint64_t)st.st_size;
	if (read_headers(r)) {
		td_set_err(err, errlen, "%s", r->errmsg);
		goto fail;
	}
	return r;
fail:
	ut_tracedat_close_reader(r);
	return NULL;
}

static uint16_t map_type(struct ut_tracedat *r, uint16_t id)
{
	for (size_t i = 0; i < r->nr_idmap; i++)
		if (r->idmap[i].id == id)
			return r->idmap[i].type;
	return 0;
}

/*
 * A corrupt page of CPU stream @c: the message goes to the stream (its
 * cursor reports it) and, if it is the file's first, to the reader.
 */
static void pg_err(struct ut_tracedat *r, struct td_rcpu *c, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void pg_err(struct ut_tracedat *r, struct td_rcpu *c, uint64_t off, const char *fmt, ...)
{
	char why[160], msg[sizeof(r->errmsg)];
	va_list ap;

	if (c->err)
		return; /* the stream stopped at its first inconsistency */
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(msg, sizeof(msg), "%s: corrupt page at offset 0x%llx: %s", r->path,
		 (unsigned long long)off, why);
	c->err = strdup(msg);
	if (!r->failed) {
		memcpy(r->errmsg, msg, sizeof(msg));
		r->failed = true;
	}
}

/* Payload bytes an event of @type needs at least; 0 for types we do not decode. */
static uint32_t decode_need(struct ut_tracedat *r, uint16_t type)
{
	switch (type) {
	case UT_EV_FUNCTION:
		return 24;
	case UT_EV_FUNCGRAPH_EXIT:
		return r->exit_retval ? 48 : 40;
	case UT_EV_FUNCGRAPH_ENTRY:
	case UT_EV_FUNCGRAPH_INLINED:
		return 20;
	case UT_EV_FUNC_REPEATS:
		return 32;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
	case UT_EV_PRINT:
	case UT_EV_KERNEL_STACK:
	case UT_EV_USER_STACK:
		return 16;
	}
	return 0;
}

/* kernel_stack / user_stack: the callers into c->callers. */
static void decode_stack(struct td_rcpu *c, const unsigned char *d, uint32_t len)
{
	struct ut_event *ev = &c->ev;
	uint32_t i, n = (len - 16) / 8;

	if (ev->type == UT_EV_KERNEL_STACK) {
		/* size counts entries (Linux 6.x); trust it only if it fits */
		int32_t size = (int32_t)td_get_le(d + 8, 4);

		if (size >= 0 && (uint32_t)size < n)
			n = (uint32_t)size;
	} else {
		uint32_t tgid = (uint32_t)td_get_le(d + 8, 4);

		if (tgid)
			ev->tgid = (int32_t)tgid;
		if (n > TD_USER_STACK_SLOTS)
			n = TD_USER_STACK_SLOTS;
	}
	for (i = 0; i < n; i++) {
		uint64_t a = td_get_le(d + 16 + (size_t)8 * i, 8);

		if (a == UINT64_MAX)
			break;
		c->callers[i] = a;
	}
	n = i;
	if (ev->type == UT_EV_USER_STACK)
		while (n && !c->callers[n - 1])
			n--;
	ev->nr_callers = n;
	ev->callers = c->callers;
}

/* funcgraph_exit, with or without the retval field. */
static void decode_exit(struct ut_tracedat *r, struct ut_event *ev, const unsigned char *d)
{
	ev->ip = td_get_le(d + 8, 8);
	if (r->exit_retval) {
		ev->retval = td_get_le(d + 16, 8);
		d += 8; /* the rest as without retval, 8 bytes later */
	}
	ev->depth = (uint32_t)td_get_le(d + 16, 4);
	ev->overrun = (uint32_t)td_get_le(d + 20, 4);
	ev->calltime = td_get_le(d + 24, 8);
	ev->rettime = td_get_le(d + 32, 8);
}

/* The fields after the common header, @len bytes at @d checked long enough. */
static void decode_fields(struct ut_tracedat *r, struct td_rcpu *c, const unsigned char *d,
			  uint32_t len)
{
	struct ut_event *ev = &c->ev;
	uint32_t n;

	switch (ev->type) {
	case UT_EV_FUNCTION:
		ev->ip = td_get_le(d + 8, 8);
		ev->parent_ip = td_get_le(d + 16, 8);
		break;
	case UT_EV_FUNCGRAPH_ENTRY:
	case UT_EV_FUNCGRAPH_INLINED:
		ev->ip = td_get_le(d + 8, 8);
		ev->depth = (uint32_t)td_get_le(d + 16, 4);
		break;
	case UT_EV_FUNC_REPEATS: {
		uint64_t delta = td_get_le(d + 26, 2) << 32 | td_get_le(d + 28, 4);

		ev->ip = td_get_le(d + 8, 8);
		ev->parent_ip = td_get_le(d + 16, 8);
		ev->repeats = (uint32_t)td_get_le(d + 24, 2);
		ev->last_ts = delta < ev->ts ? ev->ts - delta : 0;
		break;
	}
	case UT_EV_FUNCGRAPH_EXIT:
		decode_exit(r, ev, d);
		break;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		ev->sig = (int32_t)td_get_le(d + 8, 4);
		ev->depth = (uint32_t)td_get_le(d + 12, 4);
		break;
	case UT_EV_PRINT:
		ev->ip = td_get_le(d + 8, 8);
		n = (uint32_t)strnlen((const char *)d + 16, len - 16);
		memcpy(c->str, d + 16, n);
		c->str[n] = 0;
		ev->str = c->str;
		break;
	case UT_EV_KERNEL_STACK:
	case UT_EV_USER_STACK:
		decode_stack(c, d, len);
		break;
	}
}

static void decode_common(struct ut_tracedat *r, struct td_rcpu *c, int cpu, const unsigned char *d)
{
	struct ut_event *ev = &c->ev;
	const struct td_pid *t;

	memset(ev, 0, sizeof(*ev));
	ev->ts = c->ts;
	ev->cpu = (uint32_t)cpu;
	ev->flags = d[2];
	ev->preempt = d[3];
	ev->pid = (int32_t)td_get_le(d + 4, 4);
	t = find_pid(r->tgids, r->nr_tgids, ev->pid);
	ev->tgid = t ? t->val : 0;
}

/* An event of a USDT probe's id: its arguments into c->callers (aligned). */
static int decode_probe(struct ut_tracedat *r, struct td_rcpu *c, int cpu, const unsigned char *d,
			uint32_t len, uint64_t off)
{
	uint16_t id = (uint16_t)td_get_le(d, 2);
	const struct ut_evfmt *f = NULL;

	for (size_t i = 0; i < r->nr_probes && !f; i++)
		if (r->probes[i].id == id)
			f = &r->probes[i];
	if (!f)
		return 0;
	if (len < 8u + 8u * f->nargs) {
		pg_err(r, c, off, "%u-byte event of %s:%s is shorter than its %u arguments", len,
		       f->system, f->name, f->nargs);
		return -1;
	}
	decode_common(r, c, cpu, d);
	c->ev.type = UT_EV_PROBE;
	c->ev.probe = f;
	c->ev.nargs = f->nargs;
	for (unsigned i = 0; i < f->nargs; i++)
		c->callers[i] = td_get_le(d + 8 + (size_t)8 * i, 8);
	/* the strings after the slots, if any (the payload is padded to 4 bytes) */
	c->ev.argbytes = len - 8 <= r->page_size ? len - 8 : 8u * f->nargs;
	if (c->ev.argbytes > 8u * f->nargs)
		memcpy((uint8_t *)c->callers + (size_t)8 * f->nargs, d + 8 + (size_t)8 * f->nargs,
		       c->ev.argbytes - (size_t)8 * f->nargs);
	c->ev.args = c->callers;
	return 1;
}

/* An event of a process event's id: its fields from offset 8 into c->str. */
static int decode_pev(struct ut_tracedat *r, struct td_rcpu *c, int cpu, const unsigned char *d,
		      uint32_t len, uint64_t off)
{
	uint16_t id = (uint16_t)td_get_le(d, 2), pev = 0;
	const struct ut_procev *e;

	for (size_t i = 0; i < r->nr_pevmap && !pev; i++)
		if (r->pevmap[i].id == id)
			pev = r->pevmap[i].pev;
	e = pev ? ut_procev_by_id(pev) : NULL;
	if (!e)
		return -2; /* not one */
	if (len < e->min_len || len - 8 > r->page_size) {
		pg_err(r, c, off, "%u-byte event of %s:%s is shorter than its %u-byte format", len,
		       e->system, e->name, e->min_len);
		return -1;
	}
	decode_common(r, c, cpu, d);
	c->ev.type = UT_EV_STATIC;
	c->ev.evid = pev;
	memcpy(c->str, d + 8, len - 8);
	c->ev.raw = (const uint8_t *)c->str;
	c->ev.raw_len = (uint16_t)(len - 8);
	return 1;
}

/*
 * Decode one data record (@len bytes at @d) into c->ev.  Returns 1 for an
 * event, 0 for one of a type we do not decode, -1 when it is malformed.
 */
static int decode(struct ut_tracedat *r, struct td_rcpu *c, int cpu, const unsigned char *d,
		  uint32_t len, uint64_t off)
{
	uint16_t type;
	uint32_t need;

	if (len < 8) {
		pg_err(r, c, off, "event of %u bytes has no common header", len);
		return -1;
	}
	if (r->nr_pevmap) {
		int ret = decode_pev(r, c, cpu, d, len, off);

		if (ret != -2)
			return ret;
	}
	type = map_type(r, (uint16_t)td_get_le(d, 2));
	need = decode_need(r, type);
	if (!need)
		return decode_probe(r, c, cpu, d, len, off);
	if (len < need) {
		pg_err(r, c, off, "%u-byte event of type %u is shorter than its %u-byte format",
		       len, type, need);
		return -1;
	}
	decode_common(r, c, cpu, d);
	c->ev.type = type;
	decode_fields(r, c, d, len);
	return 1;
}

/* A compressed stream's page at plain offset @at (reader/tracedat_compress.c). */
static int page_unzip(struct ut_tracedat *r, struct td_rcpu *c, uint64_t at)
{
	char why[160];
	uint64_t where;

	if (td_zstream_page(c->z, r->fd, at, c->page, r->page_size, &where, why, sizeof(why))) {
		pg_err(r, c, where, "compressed chunk: %s", why);
		return -1;
	}
	return 0;
}

/* Read the page at @off into c->page (buffers allocated on first use); -1 on failure. */
static int page_read(struct ut_tracedat *r, struct td_rcpu *c, uint64_t off)
{
	size_t done = 0;

	if (!c->page) {
		/* buffers only for CPUs that have data */
		c->page = malloc(r->page_size);
		c->str = malloc(r->page_size);
		c->callers = malloc(sizeof(uint64_t) * (r->page_size / 8));
		if (!c->page || !c->str || !c->callers) {
			pg_err(r, c, off, "out of memory");
			return -1;
		}
	}
	if (c->z)
		return page_unzip(r, c, off);
	if (off >= r->fsize || r->fsize - off < r->page_size) {
		pg_err(r, c, off, "truncated: the file ends at 0x%llx", (unsigned long long)r->fsize);
		return -1;
	}
	while (done < r->page_size) {
		ssize_t got = pread(r->fd, c->page + done, r->page_size - done, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			pg_err(r, c, off + done, "%s",
			       got < 0 ? strerror(errno) : "unexpected end of file");
			return -1;
		}
		done += (size_t)got;
	}
	return 0;
}

/* The lost count a page's commit @word announces, added to c->lost. */
static int page_lost(struct ut_tracedat *r, struct td_rcpu *c, uint64_t word, uint64_t off)
{
	uint64_t nr;

	if (!(word & TD_MISSED_EVENTS))
		return 0;
	if (word & TD_MISSED_STORED) {
		if (r->page_size - TD_PAGE_HDR - c->commit < 8) {
			pg_err(r, c, off + 8, "no room after the data for the lost count");
			return -1;
		}
		nr = td_get_le(c->page + TD_PAGE_HDR + c->commit, 8);
	} else {
		nr = UT_TRACEDAT_LOST_UNKNOWN;
	}
	if (c->lost == UT_TRACEDAT_LOST_UNKNOWN || nr == UT_TRACEDAT_LOST_UNKNOWN ||
	    c->lost + nr < nr)
		c->lost = UT_TRACEDAT_LOST_UNKNOWN;
	else
		c->lost += nr;
	return 0;
}

/* Load the CPU's next page; 0 when there are no more, -1 when it is bad. */
static int load_page(struct ut_tracedat *r, struct td_rcpu *c)
{
	uint64_t off = c->next, word, end = c->start + c->size;
	uint32_t dsize = r->page_size - TD_PAGE_HDR;

	if (off >= end) {
		if (c->z && c->z->cut) { /* the chunks a cut file still holds are read */
			pg_err(r, c, c->z->cut_off, "compressed chunk: %s", c->z->cut);
			return -1;
		}
		c->done = true;
		return 0;
	}
	if (end - off < r->page_size) {
		pg_err(r, c, off, "CPU stream ends with a partial page of %llu bytes",
		       (unsigned long long)(end - off));
		return -1;
	}
	if (page_read(r, c, off))
		return -1;
	c->next = off + r->page_size;
	c->page_off = off;
	c->ts = td_get_le(c->page, 8);
	word = td_get_le(c->page + 8, 8);
	if (word & ~(TD_COMMIT_MASK | TD_MISSED_EVENTS | TD_MISSED_STORED)) {
		pg_err(r, c, off + 8, "commit word 0x%llx has unknown bits set",
		       (unsigned long long)word);
		return -1;
	}
	c->commit = (uint32_t)(word & TD_COMMIT_MASK);
	if (c->commit > dsize) {
		pg_err(r, c, off + 8, "commit %u is larger than the page's %u data bytes",
		       c->commit, dsize);
		return -1;
	}
	if (page_lost(r, c, word, off))
		return -1;
	c->pos = 0;
	c->loaded = true;
	return 1;
}

/*
 * One record at the page's parse position.  Returns 1 with *@data / *@len
 * set for a data record, 0 after a time or padding record (nothing to
 * decode), -1 when the record is malformed.
 */
static int next_record(struct ut_tracedat *r, struct td_rcpu *c, const unsigned char **data,
		       uint32_t *len)
{
	const unsigned char *d = c->page + TD_PAGE_HDR + c->pos;
	uint64_t off = c->page_off + TD_PAGE_HDR + c->pos;
	uint32_t left = c->commit - c->pos, hdr, type_len, delta, array, n;

	if (left < 4) {
		pg_err(r, c, off, "%u stray bytes at the end of the data", left);
		return -1;
	}
	hdr = (uint32_t)td_get_le(d, 4);
	type_len = hdr & 31;
	delta = hdr >> 5;
	array = left >= 8 ? (uint32_t)td_get_le(d + 4, 4) : 0;
	if (type_len >= TD_TYPE_PADDING || type_len == 0) {
		if (type_len == TD_TYPE_PADDING && !delta) {
			/* null padding: the rest of the page is unused */
			c->loaded = false;
			return 0;
		}
		if (left < 8) {
			pg_err(r, c, off, "event header of type %u cut short", type_len);
			return -1;
		}
	}
	switch (type_len) {
	case TD_TYPE_TIME_EXTEND:
		c->ts += delta | ((uint64_t)array << TD_DELTA_BITS);
		c->pos += 8;
		return 0;
	case TD_TYPE_TIME_STAMP:
		/* absolute: the top bits are kept from the current time */
		c->ts = (c->ts & ~(TD_EXTEND_MAX - 1)) | (delta | ((uint64_t)array << TD_DELTA_BITS));
		c->pos += 8;
		return 0;
	case TD_TYPE_PADDING:
	case 0:
		/* array[0] counts itself and the data (a discarded event for padding) */
		n = (array + 3) & ~3U;
		if (array < 4 || n < array || n > left - 4) {
			pg_err(r, c, off, "event length %u does not fit in the %u bytes left",
			       array, left);
			return -1;
		}
		c->pos += 4 + n;
		if (type_len == TD_TYPE_PADDING)
			return 0;
		*data = d + 8;
		*len = n - 4;
		break;
	default:
		n = type_len * 4;
		if (n > left - 4) {
			pg_err(r, c, off, "event length %u does not fit in the %u bytes left", n, left);
			return -1;
		}
		c->pos += 4 + n;
		*data = d + 4;
		*len = n;
		break;
	}
	c->ts += delta;
	return 1;
}

/* The CPU's next event into c->ev: 1, 0 at its end, -1 on corruption. */
static int cpu_peek(struct ut_tracedat *r, struct td_rcpu *c, int cpu)
{
	for (;;) {
		const unsigned char *d = NULL;
		uint32_t len = 0;
		uint64_t off;
		int ret;

		if (!c->loaded) {
			ret = load_page(r, c);
			if (ret <= 0)
				return ret;
			continue;
		}
		if (c->pos >= c->commit) {
			c->loaded = false;
			continue;
		}
		off = c->page_off + TD_PAGE_HDR + c->pos;
		ret = next_record(r, c, &d, &len);
		if (ret < 0)
			return -1;
		if (!ret)
			continue;
		ret = decode(r, c, cpu, d, len, off);
		if (ret < 0)
			return -1;
		if (ret > 0) {
			c->ev_lost = c->lost;
			c->lost = 0;
			return 1;
		}
	}
}

/* Make sure CPU @i's next event, if it has one, is in c->ev (c->has_ev). */
static void cpu_fill(struct ut_tracedat *r, int i)
{
	struct td_rcpu *c = &r->cpu[i];
	int ret;

	if (c->done || c->has_ev)
		return;
	ret = cpu_peek(r, c, i);
	if (ret < 0)
		c->done = true; /* c->err (and r->errmsg, if first) say why */
	c->has_ev = ret > 0;
}

/* Hand out c->ev. */
static void cpu_take(struct td_rcpu *c, struct ut_event *ev, uint64_t *lost)
{
	c->has_ev = false;
	if (ev)
		*ev = c->ev;
	if (lost)
		*lost = c->ev_lost;
}

/**
 * ut_tracedat_cpu_next() - the next event of one CPU's stream
 * @r: reader
 * @cpu: the stream, 0 .. ut_tracedat_nr_cpus() - 1
 * @ev: receives the event; its str/callers stay valid until the next call
 *      for this CPU
 * @lost: receives the number of events lost just before it on the CPU
 *        (UT_TRACEDAT_LOST_UNKNOWN if the file does not say how many)
 * @err: receives a message naming the file and offset on corruption
 * @errlen: size of @err
 *
 * The cursor for a caller merging the CPUs itself (the library's stream).
 * A stream that turns out corrupt or cut short stops there: every complete
 * event before the damage is returned first.
 *
 * Return: 1 with @ev filled, 0 at the stream's end, -1 for a bad @cpu or
 * after the stream's last readable event (and on every later call).
 */
int ut_tracedat_cpu_next(struct ut_tracedat *r, int cpu, struct ut_event *ev, uint64_t *lost,
			 char *err, size_t errlen)
{
	struct td_rcpu *c;

	if (!r || cpu < 0 || cpu >= r->nr_cpus) {
		td_set_err(err, errlen, "%s: no CPU %d in the file (%d CPUs)", r ? r->path : "trace.dat",
			   cpu, r ? r->nr_cpus : 0);
		return -1;
	}
	c = &r->cpu[cpu];
	cpu_fill(r, cpu);
	if (c->has_ev) {
		cpu_take(c, ev, lost);
		return 1;
	}
	if (c->err) {
		td_set_err(err, errlen, "%s", c->err);
		return -1;
	}
	return 0;
}

/**
 * ut_tracedat_next() - the next event in time order
 * @r: reader
 * @ev: receives the event; its str/callers stay valid until the next call
 * @lost: receives the number of events lost just before it on its CPU
 *        (UT_TRACEDAT_LOST_UNKNOWN if the file does not say how many)
 * @err: receives a message naming the file offset on corruption
 * @errlen: size of @err
 *
 * The file's CPUs merged by the library's stream (reader/stream_file.c:
 * by timestamp, the lower CPU first on ties).  A CPU whose stream turns
 * out corrupt (or cut short) stops there; the other CPUs are still read to
 * their ends, so every readable event is returned, in order, before the
 * error is.
 *
 * Return: 1 with @ev filled, 0 at the end, -1 after the last readable event
 * of a corrupt file (and on every later call).
 */
int ut_tracedat_next(struct ut_tracedat *r, struct ut_event *ev, uint64_t *lost, char *err,
		     size_t errlen)
{
	struct ut_stream_item it;

	if (!r)
		return -1;
	if (!r->merge && (!(r->merge = calloc(1, sizeof(*r->merge))) ||
			  !(r->merge_st = ut_stream_new(NULL)) ||
			  ut_file_src_add(r->merge, r, r->merge_st, false))) {
		td_set_err(err, errlen, "%s: out of memory", r->path);
		return -1;
	}
	/* a file's losses come with the event after them: every item has one */
	do {
		if (ut_stream_next(r->merge_st, &it) != 1) {
			if (r->failed) {
				td_set_err(err, errlen, "%s", r->errmsg);
				return -1;
			}
			return 0;
		}
	} while (!it.ev);
	if (ev)
		*ev = *it.ev;
	if (lost)
		*lost = it.lost;
	return 1;
}

/* The file's first error (what ut_tracedat_next() reports), or NULL. */
const char *ut_tracedat_errmsg(struct ut_tracedat *r)
{
	return r && r->failed ? r->errmsg : NULL;
}

/**
 * ut_tracedat_symbols() - the symbols of the file's kallsyms section
 * @r: reader
 *
 * Return: the table (owned by @r; possibly empty).
 */
const struct ut_symtab *ut_tracedat_symbols(struct ut_tracedat *r)
{
	return r ? r->syms : NULL;
}

/**
 * ut_tracedat_comm() - a task's name from the saved cmdlines
 * @r: reader
 * @pid: thread id
 *
 * Return: the name (owned by @r), or NULL if unknown.
 */
const char *ut_tracedat_comm(struct ut_tracedat *r, int32_t pid)
{
	const struct td_pid *p = r ? find_pid(r->comms, r->nr_comms, pid) : NULL;

	return p ? p->comm : NULL;
}

/**
 * ut_tracedat_tgid() - a thread's process id from the saved tgids
 * @r: reader
 * @pid: thread id
 *
 * Return: the tgid, or -1 if unknown.
 */
int32_t ut_tracedat_tgid(struct ut_tracedat *r, int32_t pid)
{
	const struct td_pid *p = r ? find_pid(r->tgids, r->nr_tgids, pid) : NULL;

	return p ? p->val : -1;
}

/**
 * ut_tracedat_nr_cpus() - number of per-CPU streams in the file
 * @r: reader
 *
 * Return: the count.
 */
int ut_tracedat_nr_cpus(struct ut_tracedat *r)
{
	return r ? r->nr_cpus : 0;
}

/**
 * ut_tracedat_clock() - the trace clock the file was recorded with
 * @r: reader
 *
 * Return: its name, e.g. "local" (the default when the file names none).
 */
const char *ut_tracedat_clock(struct ut_tracedat *r)
{
	return r ? r->clock : NULL;
}

/**
 * ut_tracedat_uname() - the UNAME option's text
 * @r: reader
 *
 * Return: the text, or NULL if the file has none.
 */
const char *ut_tracedat_tracer(struct ut_tracedat *r)
{
	return r && r->tracer[0] ? r->tracer : NULL;
}

uint64_t ut_tracedat_lost_total(struct ut_tracedat *r)
{
	return r ? r->lost_total : 0;
}

bool ut_tracedat_options(struct ut_tracedat *r, uint64_t *bits)
{
	if (!r || !r->has_options)
		return false;
	*bits = r->options;
	return true;
}

const char *ut_tracedat_uname(struct ut_tracedat *r)
{
	return r ? r->uname : NULL;
}

/* What the header sections filled in: the pid tables, the symbols, uname. */
static void free_tables(struct ut_tracedat *r)
{
	for (size_t i = 0; i < r->nr_comms; i++)
		free(r->comms[i].comm);
	free(r->comms);
	free(r->tgids);
	ut_symtab_free(r->syms);
	free(r->uname);
}

/**
 * ut_tracedat_close_reader() - close the file and free the reader
 * @r: reader, may be NULL
 */
void ut_tracedat_close_reader(struct ut_tracedat *r)
{
	size_t i;

	if (!r)
		return;
	ut_stream_free(r->merge_st);
	if (r->merge)
		ut_file_src_free(r->merge);
	free(r->merge);
	if (r->fd >= 0)
		close(r->fd);
	for (i = 0; r->cpu && i < (size_t)r->nr_cpus; i++) {
		free(r->cpu[i].page);
		free(r->cpu[i].str);
		free(r->cpu[i].callers);
		free(r->cpu[i].err);
		if (r->cpu[i].z)
			td_zstream_free(r->cpu[i].z);
		free(r->cpu[i].z);
	}
	free(r->bcpu);
	free(r->cpu);
	free(r->probes);
	free_tables(r);
	free(r->path);
	free(r);
}
