// SPDX-License-Identifier: MIT
/*
 * trace.dat (trace-cmd file format version 6) writer and reader.
 *
 * Layout, in order (all numbers little-endian, see docs/file-format.md):
 *   magic, "tracing", "6\0", endian, long size, page size
 *   header_page / header_event texts (the ring buffer's self-description)
 *   ftrace event formats, other event systems ("utrace"), kallsyms, printk
 *   formats (none), saved cmdlines, CPU count, options, "flyrecord", the
 *   per-CPU (offset, size) table, the trace_clock text, padding to a page
 *   boundary, then each CPU's ring-buffer pages back to back.
 *
 * The writer keeps one page per CPU in memory and spills finished pages to an
 * unlinked temporary file per CPU next to the output, so memory stays bounded
 * however long the trace; ut_tracedat_close() stitches everything together.
 *
 * The reader never trusts a size or an offset from the file: every one is
 * checked against what is left of the file before it is used, and the first
 * inconsistency is reported with its file offset.
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

#include "common/tracedat.h"

#define TD_PAGE_SIZE UT_TRACEDAT_PAGE_SIZE
#define TD_PAGE_HDR 16                          /* u64 timestamp + local_t commit */
#define TD_DATA_SIZE (TD_PAGE_SIZE - TD_PAGE_HDR) /* 4080, as header_page says */

/* Ring-buffer event header: type_len:5, time_delta:27. */
#define TD_TYPE_PADDING 29
#define TD_TYPE_TIME_EXTEND 30
#define TD_TYPE_TIME_STAMP 31
#define TD_MAX_SMALL_DATA ((size_t)28 * 4) /* larger payloads keep their length in array[0] */
#define TD_DELTA_BITS 27
#define TD_DELTA_MAX (1ULL << TD_DELTA_BITS)
/* A time-extend holds 27 + 32 bits of delta. */
#define TD_EXTEND_MAX (1ULL << (TD_DELTA_BITS + 32))

/* Flags in the page's commit word (kernel's RB_MISSED_*). */
#define TD_MISSED_EVENTS (1ULL << 31)
#define TD_MISSED_STORED (1ULL << 30)
#define TD_COMMIT_MASK ((1ULL << 27) - 1)

/*
 * Biggest payload one page can take: the data area minus a time extend (8),
 * an event header with its length word (8) and a stored lost count (8).
 */
#define TD_MAX_PAYLOAD (TD_DATA_SIZE - 24)
#define TD_MAX_CALLERS ((TD_MAX_PAYLOAD - 16) / 8)
#define TD_USER_STACK_SLOTS 8
/* More CPUs than any kernel supports (NR_CPUS is at most 8192) is corruption. */
#define TD_MAX_CPUS 8192

/* Marker symbol after the last real one in kallsyms (see meta_kallsyms()). */
#define TD_END_SYM "_utrace_end"

/* trace-cmd option ids (trace-cmd's TRACECMD_OPTION_*). */
#define TD_OPT_DONE 0
#define TD_OPT_TRACECLOCK 4
#define TD_OPT_UNAME 5
#define TD_OPT_CPUCOUNT 8

static const unsigned char td_magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

/*
 * The kernel's own texts (Linux 6.x, x86-64), byte for byte as tracefs prints
 * them: trace-cmd parses them to learn the page and event layouts.
 */
static const char td_header_page[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char td_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

#define TD_COMMON_FIELDS                                                                   \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"             \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"             \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"     \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"                         \
	"\n"

#define TD_STACK_FMT                                                                       \
	"print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" " \
	"\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], "          \
	"(void *)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], "           \
	"(void *)REC->caller[5], (void *)REC->caller[6], (void *)REC->caller[7]\n"

/* utrace's own events: event system "utrace" (a signal handler starts / returns) */
#define TD_SIGNAL_FMT(name, id)                                                            \
	"name: " name "\nID: " id "\nformat:\n" TD_COMMON_FIELDS                              \
	"\tfield:int sig;\toffset:8;\tsize:4;\tsigned:1;\n"                                  \
	"\tfield:unsigned int depth;\toffset:12;\tsize:4;\tsigned:0;\n"                      \
	"\n"                                                                               \
	"print fmt: \"sig=%d\", REC->sig\n"

static const struct td_format {
	const char *system; /* NULL: ftrace */
	const char *name;
	uint16_t type;
	const char *text;
} td_formats[] = {
	{ NULL, "function", UT_EV_FUNCTION,
	  "name: function\nID: 1\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
	  "\n"
	  "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n" },
	{ NULL, "kernel_stack", UT_EV_KERNEL_STACK,
	  "name: kernel_stack\nID: 4\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	  "\n" TD_STACK_FMT },
	{ NULL, "print", UT_EV_PRINT,
	  "name: print\nID: 5\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n" },
	{ NULL, "funcgraph_exit", UT_EV_FUNCGRAPH_EXIT,
	  "name: funcgraph_exit\nID: 10\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long retval;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int depth;\toffset:24;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned int overrun;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long long calltime;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long long rettime;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u retval: %lx\", "
	  "(void *)REC->func, REC->depth, REC->calltime, REC->rettime, REC->depth, REC->retval\n" },
	{ NULL, "funcgraph_entry", UT_EV_FUNCGRAPH_ENTRY,
	  "name: funcgraph_entry\nID: 11\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
	  "\n"
	  "print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n" },
	{ NULL, "user_stack", UT_EV_USER_STACK,
	  "name: user_stack\nID: 13\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
	  "\n" TD_STACK_FMT },
	{ NULL, "func_repeats", UT_EV_FUNC_REPEATS,
	  "name: func_repeats\nID: 20\nformat:\n" TD_COMMON_FIELDS
	  "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:u16 count;\toffset:24;\tsize:2;\tsigned:0;\n"
	  "\tfield:u16 top_delta_ts;\toffset:26;\tsize:2;\tsigned:0;\n"
	  "\tfield:u32 bottom_delta_ts;\toffset:28;\tsize:4;\tsigned:0;\n"
	  "\n"
	  "print fmt: \" %ps <-%ps\\t(repeats:%u  delta: -%llu)\", (void *)REC->ip, "
	  "(void *)REC->parent_ip, REC->count, "
	  "(((u64)(REC)->top_delta_ts << 32) | (REC)->bottom_delta_ts)\n" },
	{ "utrace", "signal_enter", UT_EV_SIGNAL_ENTER, TD_SIGNAL_FMT("signal_enter", "1000") },
	{ "utrace", "signal_exit", UT_EV_SIGNAL_EXIT, TD_SIGNAL_FMT("signal_exit", "1001") },
};

#define TD_NR_FORMATS (sizeof(td_formats) / sizeof(td_formats[0]))

/* ------------------------------------------------------------------------ */
/* Little-endian helpers: the file is little-endian whatever the host.      */

static inline void put_le(unsigned char *p, uint64_t v, int n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 8 || n == 4 || n == 2) { /* one store (n is a constant once inlined) */
		if (n == 8)
			__builtin_memcpy(p, &v, 8);
		else if (n == 4)
			__builtin_memcpy(p, &(uint32_t){(uint32_t)v}, 4);
		else
			__builtin_memcpy(p, &(uint16_t){(uint16_t)v}, 2);
		return;
	}
#endif
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* A growable byte buffer; a failed allocation is remembered, not reported. */
struct td_buf {
	unsigned char *p;
	size_t len, cap;
	bool nomem;
};

static void buf_put(struct td_buf *b, const void *data, size_t n)
{
	if (b->nomem || !n)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->nomem = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void buf_num(struct td_buf *b, uint64_t v, int n)
{
	unsigned char tmp[8];

	put_le(tmp, v, n);
	buf_put(b, tmp, n);
}

static void buf_str(struct td_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void buf_printf(struct td_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void buf_printf(struct td_buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(tmp)) {
		char *big = malloc((size_t)n + 1);

		if (!big) {
			b->nomem = true;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		buf_put(b, big, (size_t)n);
		free(big);
		return;
	}
	buf_put(b, tmp, (size_t)n);
}

static void buf_free(struct td_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static int write_all(int fd, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Writer                                                                   */

struct td_wcpu {
	int fd;                  /* unlinked temp file of finished pages, -1 until needed */
	uint64_t nr_pages;
	unsigned char data[TD_DATA_SIZE];
	size_t len;              /* bytes used in data[] */
	bool open;               /* data[] is a started page */
	uint64_t page_ts;        /* the page header's timestamp */
	uint64_t last_ts;        /* time of the last event: deltas count from it */
	uint64_t page_lost;      /* lost count stored in this page */
	uint64_t pending_lost;   /* lost before the next event */
	unsigned char *wbuf;     /* finished pages not yet written (TD_WBUF_PAGES) */
	size_t wpages;
};

/* Finished pages are written to the temp files this many at a time. */
#define TD_WBUF_PAGES 64

struct ut_tracedat_writer {
	char *path;
	int fd;
	int nr_cpus;
	struct td_wcpu *cpus;
	struct td_buf meta;      /* magic .. saved cmdlines */
	char *clock;             /* trace_clock text, newline-terminated */
	char *uname;
	char *info;              /* the UT_TRACEDAT_OPT_INFO text */
	struct td_buf tgids;     /* "pid tgid\n" lines */
	int err;                 /* first error, sticky */
};

static void set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* One kallsyms line per symbol, in /proc/kallsyms' layout (tab before module). */
static void meta_kallsyms(struct td_buf *out, const struct ut_symtab *st)
{
	struct td_buf ks = { 0 };
	size_t n = st ? ut_symtab_count(st) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);
		size_t start;

		if (!s->name || !*s->name)
			continue;
		buf_printf(&ks, "%016llx t ", (unsigned long long)s->addr);
		start = ks.len;
		buf_str(&ks, s->name);
		/* a newline or tab would break the line format: make it a space */
		for (size_t j = start; !ks.nomem && j < ks.len; j++)
			if (ks.p[j] == '\n' || ks.p[j] == '\t')
				ks.p[j] = ' ';
		if (s->module && *s->module && !strpbrk(s->module, "\n\t]")) {
			buf_str(&ks, "\t[");
			buf_str(&ks, s->module);
			buf_str(&ks, "]");
		}
		buf_str(&ks, "\n");
	}
	/*
	 * libtraceevent never matches an address to the highest symbol (its
	 * search wants a successor), so end the list with a marker just past
	 * the last one; our reader drops it again.
	 */
	if (n) {
		const struct ut_sym *s = ut_symtab_at(st, n - 1);
		uint64_t end = 0;

		for (size_t i = 0; i < n; i++) {
			const struct ut_sym *x = ut_symtab_at(st, i);
			uint64_t e = x->addr + (x->size ? x->size : 1);

			if (e > end)
				end = e;
		}
		if (end > s->addr)
			buf_printf(&ks, "%016llx t %s\n", (unsigned long long)end, TD_END_SYM);
	}
	if (ks.nomem || ks.len > UINT32_MAX) {
		out->nomem = true;
	} else {
		buf_num(out, ks.len, 4);
		buf_put(out, ks.p, ks.len);
	}
	buf_free(&ks);
}

/*
 * The trace_clock line as tracefs prints it, newline-terminated; trace-cmd
 * looks for the "[name]" token, so a bare clock name gets brackets.
 */
static char *clock_text(const char *clock)
{
	size_t len = strlen(clock);
	bool nl = len && clock[len - 1] == '\n';
	char *out;

	if (strchr(clock, '['))
		return asprintf(&out, "%s%s", clock, nl ? "" : "\n") < 0 ? NULL : out;
	return asprintf(&out, "[%.*s]\n", (int)(nl ? len - 1 : len), clock) < 0 ? NULL : out;
}

/* Everything from the magic up to the saved cmdlines, into w->meta. */
/* The ftrace formats, then the other event systems: "utrace" only. */
static void meta_formats(struct td_buf *b)
{
	size_t i, n = 0;

	for (i = 0; i < TD_NR_FORMATS; i++)
		n += !td_formats[i].system;
	buf_num(b, n, 4);
	for (i = 0; i < TD_NR_FORMATS; i++) {
		if (td_formats[i].system)
			continue;
		buf_num(b, strlen(td_formats[i].text), 8);
		buf_str(b, td_formats[i].text);
	}
	buf_num(b, 1, 4);
	buf_put(b, "utrace", 7);
	buf_num(b, TD_NR_FORMATS - n, 4);
	for (i = 0; i < TD_NR_FORMATS; i++) {
		if (!td_formats[i].system)
			continue;
		buf_num(b, strlen(td_formats[i].text), 8);
		buf_str(b, td_formats[i].text);
	}
}

static int meta_build(struct ut_tracedat_writer *w, const struct ut_tracedat_meta *m)
{
	struct td_buf b = { 0 }, t = { 0 };
	const char *clock = m->clock && *m->clock ? m->clock : "[local]";
	size_t i;

	if ((m->nr_cmdlines && (!m->cmd_pids || !m->cmd_comms)) ||
	    (m->nr_tgids && (!m->tgid_pids || !m->tgid_tgids)))
		return -EINVAL;

	buf_put(&b, td_magic, sizeof(td_magic));
	buf_put(&b, "6", 2);
	buf_num(&b, 0, 1);               /* little endian */
	buf_num(&b, 8, 1);               /* sizeof(long) */
	buf_num(&b, TD_PAGE_SIZE, 4);

	buf_put(&b, "header_page", 12);
	buf_num(&b, sizeof(td_header_page) - 1, 8);
	buf_str(&b, td_header_page);
	buf_put(&b, "header_event", 13);
	buf_num(&b, sizeof(td_header_event) - 1, 8);
	buf_str(&b, td_header_event);

	meta_formats(&b);
	meta_kallsyms(&b, m->syms);
	buf_num(&b, 0, 4);               /* no trace_printk formats */

	for (i = 0; i < m->nr_cmdlines; i++) {
		const char *comm = m->cmd_comms[i];

		if (!comm || !*comm || strchr(comm, '\n'))
			continue;
		buf_printf(&t, "%d %s\n", (int)m->cmd_pids[i], comm);
	}
	buf_num(&b, t.len, 8);
	buf_put(&b, t.p, t.len);
	if (t.nomem)
		b.nomem = true;
	buf_free(&t);

	for (i = 0; i < m->nr_tgids; i++)
		buf_printf(&t, "%d %d\n", (int)m->tgid_pids[i], (int)m->tgid_tgids[i]);

	char *clk = clock_text(clock), *un = NULL, *info = NULL;

	if (m->uname)
		un = strdup(m->uname);
	if (asprintf(&info, "tracer %s\nlost %llu\n%s%llx\n", m->tracer ? m->tracer : "nop",
		     (unsigned long long)m->lost, m->has_options ? "options " : "# ",
		     (unsigned long long)m->options) < 0)
		info = NULL;
	if (b.nomem || t.nomem || !clk || (m->uname && !un) || !info) {
		buf_free(&b);
		buf_free(&t);
		free(clk);
		free(un);
		free(info);
		return -ENOMEM;
	}
	free(w->info);
	w->info = info;
	buf_free(&w->meta);
	buf_free(&w->tgids);
	free(w->clock);
	free(w->uname);
	w->meta = b;
	w->tgids = t;
	w->clock = clk;
	w->uname = un;
	return 0;
}

/**
 * ut_tracedat_create() - start writing a trace.dat file
 * @path: output file, created or truncated now
 * @m: metadata (CPU count, clock, symbols, task names); copied
 * @err: receives a message on failure
 * @errlen: size of @err
 *
 * Return: the writer, or NULL (with @err set) on failure.
 */
struct ut_tracedat_writer *ut_tracedat_create(const char *path, const struct ut_tracedat_meta *m,
					      char *err, size_t errlen)
{
	struct ut_tracedat_writer *w;
	int ret;

	if (!path || !m || m->nr_cpus < 1 || m->nr_cpus > TD_MAX_CPUS) {
		set_err(err, errlen, "trace.dat: bad arguments (nr_cpus %d)", m ? m->nr_cpus : 0);
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		goto nomem;
	w->fd = -1;
	w->nr_cpus = m->nr_cpus;
	w->path = strdup(path);
	w->cpus = calloc((size_t)m->nr_cpus, sizeof(*w->cpus));
	if (!w->path || !w->cpus)
		goto nomem;
	for (int i = 0; i < w->nr_cpus; i++)
		w->cpus[i].fd = -1;
	ret = meta_build(w, m);
	if (ret == -EINVAL) {
		set_err(err, errlen, "%s: cmdline or tgid table without its arrays", path);
		goto fail;
	}
	if (ret)
		goto nomem;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	return w;
nomem:
	set_err(err, errlen, "%s: out of memory", path);
fail:
	if (w) {
		if (w->fd >= 0)
			close(w->fd);
		buf_free(&w->meta);
		buf_free(&w->tgids);
		free(w->clock);
		free(w->uname);
		free(w->info);
		free(w->cpus);
		free(w->path);
		free(w);
	}
	return NULL;
}

/**
 * ut_tracedat_update_meta() - replace the metadata given to ut_tracedat_create()
 * @w: writer
 * @m: new metadata; its nr_cpus must match
 *
 * Task names and symbols are often known only once tracing ends; this lets the
 * caller supply them before ut_tracedat_close().
 *
 * Return: 0, -EINVAL if the CPU count differs or a table lacks its arrays,
 * or -ENOMEM.
 */
int ut_tracedat_update_meta(struct ut_tracedat_writer *w, const struct ut_tracedat_meta *m)
{
	if (!w || !m || m->nr_cpus != w->nr_cpus)
		return -EINVAL;
	return meta_build(w, m);
}

/* Temp file for a CPU's pages, in the output's directory, unlinked at once. */
static int cpu_tmpfile(struct ut_tracedat_writer *w, int cpu)
{
	size_t n = strlen(w->path) + 32;
	char *tmpl = malloc(n);
	int fd;

	if (!tmpl)
		return -ENOMEM;
	snprintf(tmpl, n, "%s.cpu%d.XXXXXX", w->path, cpu);
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
	} else {
		/* nothing to clean up after a crash: the fd keeps the data */
		unlink(tmpl);
	}
	free(tmpl);
	return fd;
}

/* Write the CPU's buffered finished pages to its temp file. */
static int wbuf_flush(struct ut_tracedat_writer *w, int cpu)
{
	struct td_wcpu *c = &w->cpus[cpu];
	int ret;

	if (!c->wpages)
		return 0;
	if (c->fd < 0) {
		c->fd = cpu_tmpfile(w, cpu);
		if (c->fd < 0)
			return c->fd;
	}
	ret = write_all(c->fd, c->wbuf, c->wpages * TD_PAGE_SIZE);
	c->wpages = 0;
	return ret;
}

/* Finish the CPU's current page (header, data, lost count) into its write buffer. */
static int page_flush(struct ut_tracedat_writer *w, int cpu)
{
	struct td_wcpu *c = &w->cpus[cpu];
	unsigned char *page;
	uint64_t commit = c->len;
	int ret;

	if (!c->open)
		return 0;
	if (!c->wbuf) {
		c->wbuf = malloc((size_t)TD_WBUF_PAGES * TD_PAGE_SIZE);
		if (!c->wbuf)
			return -ENOMEM;
	}
	if (c->wpages == TD_WBUF_PAGES) {
		ret = wbuf_flush(w, cpu);
		if (ret)
			return ret;
	}
	page = c->wbuf + c->wpages * TD_PAGE_SIZE;
	memset(page, 0, TD_PAGE_SIZE);
	memcpy(page + TD_PAGE_HDR, c->data, c->len);
	if (c->page_lost) {
		/* the kernel appends the count after the data and flags the commit */
		put_le(page + TD_PAGE_HDR + c->len, c->page_lost, 8);
		commit |= TD_MISSED_EVENTS | TD_MISSED_STORED;
	}
	put_le(page, c->page_ts, 8);
	put_le(page + 8, commit, 8);
	c->wpages++;
	c->nr_pages++;
	c->open = false;
	c->len = 0;
	c->page_lost = 0;
	return 0;
}

static void put_common(unsigned char *p, const struct ut_event *ev)
{
	put_le(p, ev->type, 2);
	p[2] = ev->flags;
	p[3] = ev->preempt;
	put_le(p + 4, (uint32_t)ev->pid, 4);
}

/* The event's payload in the kernel's layout; returns its length or -EINVAL. */
static int encode(const struct ut_event *ev, unsigned char *p)
{
	size_t n, i;

	memset(p, 0, 24);
	put_common(p, ev);
	switch (ev->type) {
	case UT_EV_FUNCTION:
		put_le(p + 8, ev->ip, 8);
		put_le(p + 16, ev->parent_ip, 8);
		return 24;
	case UT_EV_FUNC_REPEATS:
		/* the time back to the last call: 48 bits, top 16 and bottom 32 */
		n = ev->ts > ev->last_ts ? ev->ts - ev->last_ts : 0;
		put_le(p + 8, ev->ip, 8);
		put_le(p + 16, ev->parent_ip, 8);
		put_le(p + 24, ev->repeats > 0xffff ? 0xffff : ev->repeats, 2);
		put_le(p + 26, (uint16_t)(n >> 32), 2);
		put_le(p + 28, (uint32_t)n, 4);
		return 32;
	case UT_EV_PRINT:
		put_le(p + 8, ev->ip, 8);
		n = ev->str ? strnlen(ev->str, TD_MAX_PAYLOAD - 17) : 0;
		memcpy(p + 16, ev->str ? ev->str : "", n);
		p[16 + n] = 0;
		return (int)(16 + n + 1);
	case UT_EV_FUNCGRAPH_ENTRY:
		put_le(p + 8, ev->ip, 8);
		put_le(p + 16, ev->depth, 4);
		return 24;
	case UT_EV_FUNCGRAPH_EXIT:
		put_le(p + 8, ev->ip, 8);
		put_le(p + 16, ev->retval, 8);
		put_le(p + 24, ev->depth, 4);
		put_le(p + 28, ev->overrun, 4);
		put_le(p + 32, ev->calltime, 8);
		put_le(p + 40, ev->rettime, 8);
		return 48;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		put_le(p + 8, (uint32_t)ev->sig, 4);
		put_le(p + 12, ev->depth, 4);
		return 16;
	case UT_EV_KERNEL_STACK:
		/* variable length, size = number of entries, as Linux 6.x does */
		n = ev->callers ? ev->nr_callers : 0;
		if (n > TD_MAX_CALLERS)
			n = TD_MAX_CALLERS;
		put_le(p + 8, (uint32_t)n, 4);
		for (i = 0; i < n; i++)
			put_le(p + 16 + 8 * i, ev->callers[i], 8);
		return (int)(16 + 8 * n);
	case UT_EV_USER_STACK:
		/* fixed caller[8], unused slots zero, as the kernel does */
		n = ev->callers ? ev->nr_callers : 0;
		if (n > TD_USER_STACK_SLOTS)
			n = TD_USER_STACK_SLOTS;
		put_le(p + 8, (uint32_t)ev->tgid, 4);
		memset(p + 16, 0, (size_t)8 * TD_USER_STACK_SLOTS);
		for (i = 0; i < n; i++)
			put_le(p + 16 + 8 * i, ev->callers[i], 8);
		return 16 + 8 * TD_USER_STACK_SLOTS;
	}
	return -EINVAL;
}

static void page_put_hdr(struct td_wcpu *c, unsigned type_len, uint64_t delta, int64_t array)
{
	put_le(c->data + c->len, type_len | (uint32_t)(delta << 5), 4);
	c->len += 4;
	if (array >= 0) {
		put_le(c->data + c->len, (uint64_t)array, 4);
		c->len += 4;
	}
}

/*
 * memcpy of an event's payload (a few dozen bytes) through the C library.
 * Knowing the payload's size bound, the compiler expands a plain memcpy to
 * `rep movsq`, whose start-up cost was a fifth of the time spent writing
 * events; hiding the size makes it call memcpy, which copies small sizes
 * with a couple of vector moves.
 */
static inline void copy_payload(uint8_t *dst, const uint8_t *src, size_t n)
{
	__asm__("" : "+r"(n));
	memcpy(dst, src, n);
}

/**
 * ut_tracedat_write() - append one event to its CPU's stream
 * @w: writer
 * @ev: the event; ev->cpu selects the stream
 *
 * Timestamps must not decrease on a CPU; an earlier one is clamped to the
 * previous event's.  A print string or stack too large for a page is cut.
 *
 * Return: 0, -EINVAL (bad CPU or event type), or a write error.
 */
int ut_tracedat_write(struct ut_tracedat_writer *w, const struct ut_event *ev)
{
	unsigned char payload[TD_MAX_PAYLOAD];
	struct td_wcpu *c;
	uint64_t ts, delta;
	size_t plen, alen, need;
	int len, ret;

	if (!w || !ev)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (ev->cpu >= (uint32_t)w->nr_cpus)
		return -EINVAL;
	len = encode(ev, payload);
	if (len < 0)
		return len;
	c = &w->cpus[ev->cpu];
	ts = ev->ts;
	if (c->open || c->nr_pages) {
		if (ts < c->last_ts)
			ts = c->last_ts;
	}
	plen = (size_t)len;
	alen = (plen + 3) & ~(size_t)3;
	memset(payload + plen, 0, alen - plen);
	need = alen + (alen > TD_MAX_SMALL_DATA ? 8 : 4);

	if (c->open) {
		delta = ts - c->last_ts;
		size_t cap = TD_DATA_SIZE - (c->page_lost ? 8 : 0);
		size_t ext = delta >= TD_DELTA_MAX ? 8 : 0;

		/*
		 * Lost events are reported at the start of a page, so a loss
		 * closes the page, exactly like the kernel's reader does.
		 */
		if (c->pending_lost || delta >= TD_EXTEND_MAX || c->len + ext + need > cap) {
			ret = page_flush(w, (int)ev->cpu);
			if (ret)
				return w->err = ret;
		}
	}
	if (!c->open) {
		c->open = true;
		c->len = 0;
		c->page_ts = ts;
		c->last_ts = ts;
		c->page_lost = c->pending_lost;
		c->pending_lost = 0;
	}
	delta = ts - c->last_ts;
	if (delta >= TD_DELTA_MAX) {
		page_put_hdr(c, TD_TYPE_TIME_EXTEND, delta & (TD_DELTA_MAX - 1),
			     (int64_t)(delta >> TD_DELTA_BITS));
		delta = 0;
	}
	if (alen > TD_MAX_SMALL_DATA)
		page_put_hdr(c, 0, delta, (int64_t)(alen + 4));
	else
		page_put_hdr(c, (unsigned)(alen / 4), delta, -1);
	copy_payload(c->data + c->len, payload, alen);
	c->len += alen;
	c->last_ts = ts;
	return 0;
}

/**
 * ut_tracedat_lost() - record events lost on a CPU
 * @w: writer
 * @cpu: the CPU
 * @nr: how many were lost just before the CPU's next event
 *
 * The count goes into the next page (RB_MISSED_EVENTS | RB_MISSED_STORED in
 * its commit word, the number after its data), so `trace-cmd report` shows
 * it before that page's first event.  A loss after a CPU's last event has no
 * page to go into and is dropped.
 *
 * Return: 0 or -EINVAL.
 */
int ut_tracedat_lost(struct ut_tracedat_writer *w, unsigned cpu, uint64_t nr)
{
	if (!w || cpu >= (unsigned)w->nr_cpus)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (w->cpus[cpu].pending_lost + nr < nr)
		w->cpus[cpu].pending_lost = UINT64_MAX - 1;
	else
		w->cpus[cpu].pending_lost += nr;
	return 0;
}

/* Header: meta, CPU count, options, flyrecord table, clock, page padding. */
static int build_header(struct ut_tracedat_writer *w, struct td_buf *h)
{
	uint64_t off;
	int i;

	buf_put(h, w->meta.p, w->meta.len);
	buf_num(h, (uint64_t)w->nr_cpus, 4);

	buf_put(h, "options  ", 10);
	buf_num(h, TD_OPT_CPUCOUNT, 2);
	buf_num(h, 4, 4);
	buf_num(h, (uint64_t)w->nr_cpus, 4);
	/* no payload: it says "the trace_clock text follows the CPU table" */
	buf_num(h, TD_OPT_TRACECLOCK, 2);
	buf_num(h, 0, 4);
	if (w->uname) {
		buf_num(h, TD_OPT_UNAME, 2);
		buf_num(h, strlen(w->uname) + 1, 4);
		buf_put(h, w->uname, strlen(w->uname) + 1);
	}
	if (w->info) {
		buf_num(h, UT_TRACEDAT_OPT_INFO, 2);
		buf_num(h, strlen(w->info) + 1, 4);
		buf_put(h, w->info, strlen(w->info) + 1);
	}
	if (w->tgids.len) {
		buf_num(h, UT_TRACEDAT_OPT_TGIDS, 2);
		buf_num(h, w->tgids.len + 1, 4);
		buf_put(h, w->tgids.p, w->tgids.len);
		buf_put(h, "", 1);
	}
	buf_num(h, TD_OPT_DONE, 2);

	buf_put(h, "flyrecord", 10);
	/* the table's offsets depend on the header's size: compute it first */
	off = h->len + 16ULL * (uint64_t)w->nr_cpus + 8 + strlen(w->clock);
	off = (off + TD_PAGE_SIZE - 1) & ~(uint64_t)(TD_PAGE_SIZE - 1);
	for (i = 0; i < w->nr_cpus; i++) {
		uint64_t size = w->cpus[i].nr_pages * TD_PAGE_SIZE;

		buf_num(h, off, 8);
		buf_num(h, size, 8);
		off += size;
	}
	buf_num(h, strlen(w->clock), 8);
	buf_str(h, w->clock);
	while (h->len % TD_PAGE_SIZE && !h->nomem)
		buf_put(h, "", 1);
	return h->nomem ? -ENOMEM : 0;
}

static int copy_pages(int out, int in, uint64_t size)
{
	static const size_t chunk = 1 << 16;
	unsigned char *buf = malloc(chunk);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	if (lseek(in, 0, SEEK_SET) < 0) {
		ret = -errno;
		goto out;
	}
	/* In the kernel when it can: no trip through user space. */
	while (size) {
		ssize_t r = copy_file_range(in, NULL, out, NULL, (size_t)size, 0);

		if (r <= 0)
			break;
		size -= (uint64_t)r;
	}
	while (size) {
		size_t want = size < chunk ? (size_t)size : chunk;
		ssize_t r = read(in, buf, want);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			ret = r < 0 ? -errno : -EIO;
			goto out;
		}
		ret = write_all(out, buf, (size_t)r);
		if (ret)
			goto out;
		size -= (uint64_t)r;
	}
out:
	free(buf);
	return ret;
}

static void writer_free(struct ut_tracedat_writer *w)
{
	for (int i = 0; i < w->nr_cpus; i++) {
		if (w->cpus[i].fd >= 0)
			close(w->cpus[i].fd);
		free(w->cpus[i].wbuf);
	}
	if (w->fd >= 0)
		close(w->fd);
	buf_free(&w->meta);
	buf_free(&w->tgids);
	free(w->clock);
	free(w->uname);
	free(w->info);
	free(w->cpus);
	free(w->path);
	free(w);
}

/**
 * ut_tracedat_close() - finish the file and free the writer
 * @w: writer (freed whatever the outcome)
 *
 * Flushes the partial pages, writes the header and copies each CPU's pages
 * after it.  On failure the incomplete output file is removed.
 *
 * Return: 0 or a negative errno.
 */
int ut_tracedat_close(struct ut_tracedat_writer *w)
{
	struct td_buf h = { 0 };
	int ret, i;

	if (!w)
		return -EINVAL;
	ret = w->err;
	for (i = 0; !ret && i < w->nr_cpus; i++) {
		ret = page_flush(w, i);
		if (!ret)
			ret = wbuf_flush(w, i);
	}
	if (!ret)
		ret = build_header(w, &h);
	if (!ret)
		ret = write_all(w->fd, h.p, h.len);
	for (i = 0; !ret && i < w->nr_cpus; i++)
		if (w->cpus[i].nr_pages)
			ret = copy_pages(w->fd, w->cpus[i].fd, w->cpus[i].nr_pages * TD_PAGE_SIZE);
	/* No fsync: waiting for the disk cost seconds on big traces, for nothing. */
	if (close(w->fd) < 0 && !ret)
		ret = -errno;
	w->fd = -1;
	if (ret)
		unlink(w->path);
	buf_free(&h);
	writer_free(w);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Reader                                                                   */

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
	char *str;               /* ev.str storage */
	uint64_t *callers;       /* ev.callers storage */
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
	/* event id -> UT_EV_* for the ftrace formats found in the file */
	struct { uint16_t id, type; } idmap[TD_NR_FORMATS];
	size_t nr_idmap;
	/* funcgraph_exit has `retval` (CONFIG_FUNCTION_GRAPH_RETVAL): fields move by 8 */
	bool exit_retval;
	bool failed;
	char errmsg[256];
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
	snprintf(r->errmsg, sizeof(r->errmsg), "%s: corrupt %s at offset 0x%llx: %s", r->path,
		 what, (unsigned long long)off, why);
	r->failed = true;
}

/* Read @n header bytes at the parse position; a short file is an error. */
static int rd(struct ut_tracedat *r, void *buf, size_t n, const char *what)
{
	size_t done = 0;

	if (n > r->fsize || r->pos > r->fsize - n) {
		rd_err(r, what, r->pos, "file ends at 0x%llx", (unsigned long long)r->fsize);
		return -1;
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
	*v = get_le(tmp, n);
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

/* "name: X" and "ID: N" of a format of @system (NULL: ftrace): map the ids we decode. */
static void parse_format(struct ut_tracedat *r, const char *system, const char *text)
{
	const char *n = strstr(text, "name: "), *id = strstr(text, "\nID: ");
	size_t len;
	long v;

	if (!n || !id || n != text)
		return;
	n += 6;
	len = strcspn(n, "\n");
	v = strtol(id + 5, NULL, 10);
	if (v <= 0 || v > 65535)
		return;
	for (size_t i = 0; i < TD_NR_FORMATS; i++) {
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

static int read_headers(struct ut_tracedat *r)
{
	unsigned char b[16];
	uint64_t v, n, i, size, cpus, nr_cpus;
	bool have_clock = false;
	char *text;

	if (rd(r, b, 10, "file header"))
		return -1;
	if (memcmp(b, td_magic, 10) != 0) {
		rd_err(r, "file header", 0, "not a trace.dat file (bad magic)");
		return -1;
	}
	if (rd_cstr(r, (char *)b, 16, "version string"))
		return -1;
	if (strcmp((char *)b, "6") != 0) {
		rd_err(r, "version string", 10, "file version \"%.8s\" is not supported (only 6)",
		       (char *)b);
		return -1;
	}
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

	if (rd(r, b, 12, "header_page") || memcmp(b, "header_page", 12) != 0) {
		if (!r->failed)
			rd_err(r, "header_page", r->pos - 12, "missing header_page tag");
		return -1;
	}
	if (rd_num(r, &size, 8, "header_page") || rd_skip(r, size, "header_page"))
		return -1;
	if (rd(r, b, 13, "header_event") || memcmp(b, "header_event", 13) != 0) {
		if (!r->failed)
			rd_err(r, "header_event", r->pos - 13, "missing header_event tag");
		return -1;
	}
	if (rd_num(r, &size, 8, "header_event") || rd_skip(r, size, "header_event"))
		return -1;

	/* ftrace formats: each count iteration consumes bytes, so EOF bounds it */
	if (rd_num(r, &n, 4, "ftrace formats"))
		return -1;
	for (i = 0; i < n; i++) {
		if (rd_num(r, &size, 8, "ftrace format"))
			return -1;
		text = rd_blob(r, size, "ftrace format");
		if (!text)
			return -1;
		parse_format(r, NULL, text);
		free(text);
	}

	if (rd_num(r, &n, 4, "event systems"))
		return -1;
	for (i = 0; i < n; i++) {
		char sys[256];
		uint64_t nev, j;

		if (rd_cstr(r, sys, sizeof(sys), "event system name") ||
		    rd_num(r, &nev, 4, "event system"))
			return -1;
		for (j = 0; j < nev; j++) {
			if (rd_num(r, &size, 8, "event format"))
				return -1;
			text = rd_blob(r, size, "event format");
			if (!text)
				return -1;
			parse_format(r, sys, text);
			free(text);
		}
	}

	if (rd_num(r, &size, 4, "kallsyms"))
		return -1;
	text = rd_blob(r, size, "kallsyms");
	if (!text)
		return -1;
	v = r->pos;
	if (parse_kallsyms(r, text)) {
		free(text);
		rd_err(r, "kallsyms", v, "out of memory");
		return -1;
	}
	free(text);

	if (rd_num(r, &size, 4, "printk formats") || rd_skip(r, size, "printk formats"))
		return -1;

	if (rd_num(r, &size, 8, "saved cmdlines"))
		return -1;
	text = rd_blob(r, size, "saved cmdlines");
	if (!text)
		return -1;
	if (parse_pid_lines(text, &r->comms, &r->nr_comms, true)) {
		free(text);
		rd_err(r, "saved cmdlines", r->pos, "out of memory");
		return -1;
	}
	free(text);

	if (rd_num(r, &cpus, 4, "CPU count"))
		return -1;
	nr_cpus = cpus;

	if (rd(r, b, 10, "section tag"))
		return -1;
	if (!memcmp(b, "options  ", 10)) {
		for (;;) {
			uint64_t id, osize, at;

			if (rd_num(r, &id, 2, "option"))
				return -1;
			if (id == TD_OPT_DONE)
				break;
			at = r->pos - 2;
			if (rd_num(r, &osize, 4, "option"))
				return -1;
			text = rd_blob(r, osize, "option");
			if (!text)
				return -1;
			switch (id) {
			case TD_OPT_TRACECLOCK:
				have_clock = true;
				break;
			case TD_OPT_UNAME:
				free(r->uname);
				r->uname = strdup(text);
				break;
			case UT_TRACEDAT_OPT_INFO: {
				unsigned long long lost;
				const char *l = strstr(text, "lost ");

				/* the blob is NUL-terminated by rd_blob */
				if (sscanf(text, "tracer %31s", r->tracer) != 1)
					r->tracer[0] = '\0';
				if (l && sscanf(l, "lost %llu", &lost) == 1)
					r->lost_total = lost;
				l = strstr(text, "options ");
				if (l && sscanf(l, "options %llx", &lost) == 1) {
					r->options = lost;
					r->has_options = true;
				}
				break;
			}
			case TD_OPT_CPUCOUNT:
				if (osize < 4) {
					free(text);
					rd_err(r, "CPU count option", at, "size %llu < 4",
					       (unsigned long long)osize);
					return -1;
				}
				/* trace-cmd sizes the CPU table by this when present */
				nr_cpus = get_le((unsigned char *)text, 4);
				break;
			case UT_TRACEDAT_OPT_TGIDS:
				free(r->tgids);
				r->tgids = NULL;
				r->nr_tgids = 0;
				if (parse_pid_lines(text, &r->tgids, &r->nr_tgids, false)) {
					free(text);
					rd_err(r, "tgid option", at, "out of memory");
					return -1;
				}
				break;
			default:
				break; /* unknown options are skipped, as trace-cmd does */
			}
			free(text);
		}
		if (rd(r, b, 10, "section tag"))
			return -1;
	}
	if (memcmp(b, "flyrecord", 10) != 0) {
		rd_err(r, "section tag", r->pos - 10, "expected \"flyrecord\" (latency files are not supported)");
		return -1;
	}
	/* each CPU needs 16 table bytes: a bogus count fails on EOF below */
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
	for (i = 0; i < nr_cpus; i++) {
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
	if (have_clock) {
		if (rd_num(r, &size, 8, "trace_clock"))
			return -1;
		text = rd_blob(r, size, "trace_clock");
		if (!text)
			return -1;
		parse_clock(r, text);
		free(text);
	}
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
		set_err(err, errlen, "%s: out of memory", path);
		return NULL;
	}
	r->fd = -1;
	strcpy(r->clock, "local");
	r->path = strdup(path);
	r->syms = ut_symtab_new();
	if (!r->path || !r->syms) {
		set_err(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	r->fsize = (uint64_t)st.st_size;
	if (read_headers(r)) {
		set_err(err, errlen, "%s", r->errmsg);
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
 * Decode one data record (@len bytes at @d) into c->ev.  Returns 1 for an
 * event, 0 for one of a type we do not decode, -1 when it is malformed.
 */
static int decode(struct ut_tracedat *r, struct td_rcpu *c, int cpu, const unsigned char *d,
		  uint32_t len, uint64_t off)
{
	struct ut_event *ev = &c->ev;
	uint16_t type;
	uint32_t need, n, i;
	const struct td_pid *t;

	if (len < 8) {
		rd_err(r, "page", off, "event of %u bytes has no common header", len);
		return -1;
	}
	type = map_type(r, (uint16_t)get_le(d, 2));
	switch (type) {
	case UT_EV_FUNCTION:
		need = 24;
		break;
	case UT_EV_FUNCGRAPH_EXIT:
		need = r->exit_retval ? 48 : 40;
		break;
	case UT_EV_FUNCGRAPH_ENTRY:
		need = 20;
		break;
	case UT_EV_FUNC_REPEATS:
		need = 32;
		break;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
	case UT_EV_PRINT:
	case UT_EV_KERNEL_STACK:
	case UT_EV_USER_STACK:
		need = 16;
		break;
	default:
		return 0;
	}
	if (len < need) {
		rd_err(r, "page", off, "%u-byte event of type %u is shorter than its %u-byte format",
		       len, type, need);
		return -1;
	}
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->ts = c->ts;
	ev->cpu = (uint32_t)cpu;
	ev->flags = d[2];
	ev->preempt = d[3];
	ev->pid = (int32_t)get_le(d + 4, 4);
	t = find_pid(r->tgids, r->nr_tgids, ev->pid);
	ev->tgid = t ? t->val : 0;

	switch (type) {
	case UT_EV_FUNCTION:
		ev->ip = get_le(d + 8, 8);
		ev->parent_ip = get_le(d + 16, 8);
		break;
	case UT_EV_FUNCGRAPH_ENTRY:
		ev->ip = get_le(d + 8, 8);
		ev->depth = (uint32_t)get_le(d + 16, 4);
		break;
	case UT_EV_FUNC_REPEATS: {
		uint64_t delta = get_le(d + 26, 2) << 32 | get_le(d + 28, 4);

		ev->ip = get_le(d + 8, 8);
		ev->parent_ip = get_le(d + 16, 8);
		ev->repeats = (uint32_t)get_le(d + 24, 2);
		ev->last_ts = delta < ev->ts ? ev->ts - delta : 0;
		break;
	}
	case UT_EV_FUNCGRAPH_EXIT:
		ev->ip = get_le(d + 8, 8);
		if (r->exit_retval) {
			ev->retval = get_le(d + 16, 8);
			d += 8; /* the rest as without retval, 8 bytes later */
		}
		ev->depth = (uint32_t)get_le(d + 16, 4);
		ev->overrun = (uint32_t)get_le(d + 20, 4);
		ev->calltime = get_le(d + 24, 8);
		ev->rettime = get_le(d + 32, 8);
		break;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		ev->sig = (int32_t)get_le(d + 8, 4);
		ev->depth = (uint32_t)get_le(d + 12, 4);
		break;
	case UT_EV_PRINT:
		ev->ip = get_le(d + 8, 8);
		n = (uint32_t)strnlen((const char *)d + 16, len - 16);
		memcpy(c->str, d + 16, n);
		c->str[n] = 0;
		ev->str = c->str;
		break;
	case UT_EV_KERNEL_STACK:
	case UT_EV_USER_STACK:
		n = (len - 16) / 8;
		if (type == UT_EV_KERNEL_STACK) {
			/* size counts entries (Linux 6.x); trust it only if it fits */
			int32_t size = (int32_t)get_le(d + 8, 4);

			if (size >= 0 && (uint32_t)size < n)
				n = (uint32_t)size;
		} else {
			uint32_t tgid = (uint32_t)get_le(d + 8, 4);

			if (tgid)
				ev->tgid = (int32_t)tgid;
			if (n > TD_USER_STACK_SLOTS)
				n = TD_USER_STACK_SLOTS;
		}
		for (i = 0; i < n; i++) {
			uint64_t a = get_le(d + 16 + (size_t)8 * i, 8);

			if (a == UINT64_MAX)
				break;
			c->callers[i] = a;
		}
		n = i;
		if (type == UT_EV_USER_STACK)
			while (n && !c->callers[n - 1])
				n--;
		ev->nr_callers = n;
		ev->callers = c->callers;
		break;
	}
	return 1;
}

/* Load the CPU's next page; 0 when there are no more, -1 when it is bad. */
static int load_page(struct ut_tracedat *r, struct td_rcpu *c)
{
	uint64_t off = c->next, word, avail, end = c->start + c->size;
	uint32_t dsize = r->page_size - TD_PAGE_HDR;
	size_t done = 0;

	if (off >= end) {
		c->done = true;
		return 0;
	}
	if (end - off < r->page_size) {
		rd_err(r, "page", off, "CPU stream ends with a partial page of %llu bytes",
		       (unsigned long long)(end - off));
		return -1;
	}
	if (!c->page) {
		/* buffers only for CPUs that have data */
		c->page = malloc(r->page_size);
		c->str = malloc(r->page_size);
		c->callers = malloc(sizeof(uint64_t) * (r->page_size / 8));
		if (!c->page || !c->str || !c->callers) {
			rd_err(r, "page", off, "out of memory");
			return -1;
		}
	}
	if (off >= r->fsize || r->fsize - off < r->page_size) {
		rd_err(r, "page", off, "truncated: the file ends at 0x%llx",
		       (unsigned long long)r->fsize);
		return -1;
	}
	while (done < r->page_size) {
		ssize_t got = pread(r->fd, c->page + done, r->page_size - done, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			rd_err(r, "page", off + done, "%s",
			       got < 0 ? strerror(errno) : "unexpected end of file");
			return -1;
		}
		done += (size_t)got;
	}
	c->next = off + r->page_size;
	c->page_off = off;
	c->ts = get_le(c->page, 8);
	word = get_le(c->page + 8, 8);
	if (word & ~(TD_COMMIT_MASK | TD_MISSED_EVENTS | TD_MISSED_STORED)) {
		rd_err(r, "page", off + 8, "commit word 0x%llx has unknown bits set",
		       (unsigned long long)word);
		return -1;
	}
	c->commit = (uint32_t)(word & TD_COMMIT_MASK);
	if (c->commit > dsize) {
		rd_err(r, "page", off + 8, "commit %u is larger than the page's %u data bytes",
		       c->commit, dsize);
		return -1;
	}
	if (word & TD_MISSED_EVENTS) {
		if (word & TD_MISSED_STORED) {
			avail = dsize - c->commit;
			if (avail < 8) {
				rd_err(r, "page", off + 8, "no room after the data for the lost count");
				return -1;
			}
			word = get_le(c->page + TD_PAGE_HDR + c->commit, 8);
		} else {
			word = UT_TRACEDAT_LOST_UNKNOWN;
		}
		if (c->lost == UT_TRACEDAT_LOST_UNKNOWN || word == UT_TRACEDAT_LOST_UNKNOWN ||
		    c->lost + word < word)
			c->lost = UT_TRACEDAT_LOST_UNKNOWN;
		else
			c->lost += word;
	}
	c->pos = 0;
	c->loaded = true;
	return 1;
}

/* The CPU's next event into c->ev: 1, 0 at its end, -1 on corruption. */
static int cpu_peek(struct ut_tracedat *r, struct td_rcpu *c, int cpu)
{
	for (;;) {
		const unsigned char *d;
		uint32_t hdr, type_len, delta, left, len, array;
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
		d = c->page + TD_PAGE_HDR + c->pos;
		off = c->page_off + TD_PAGE_HDR + c->pos;
		left = c->commit - c->pos;
		if (left < 4) {
			rd_err(r, "page", off, "%u stray bytes at the end of the data", left);
			return -1;
		}
		hdr = (uint32_t)get_le(d, 4);
		type_len = hdr & 31;
		delta = hdr >> 5;
		array = left >= 8 ? (uint32_t)get_le(d + 4, 4) : 0;
		if (type_len >= TD_TYPE_PADDING || type_len == 0) {
			if (type_len == TD_TYPE_PADDING && !delta) {
				/* null padding: the rest of the page is unused */
				c->loaded = false;
				continue;
			}
			if (left < 8) {
				rd_err(r, "page", off, "event header of type %u cut short", type_len);
				return -1;
			}
		}
		switch (type_len) {
		case TD_TYPE_TIME_EXTEND:
			c->ts += delta | ((uint64_t)array << TD_DELTA_BITS);
			c->pos += 8;
			continue;
		case TD_TYPE_TIME_STAMP:
			/* absolute: the top bits are kept from the current time */
			c->ts = (c->ts & ~(TD_EXTEND_MAX - 1)) |
				(delta | ((uint64_t)array << TD_DELTA_BITS));
			c->pos += 8;
			continue;
		case TD_TYPE_PADDING:
		case 0:
			/* array[0] counts itself and the data (a discarded event for padding) */
			len = (array + 3) & ~3U;
			if (array < 4 || len < array || len > left - 4) {
				rd_err(r, "page", off, "event length %u does not fit in the %u bytes left",
				       array, left);
				return -1;
			}
			c->pos += 4 + len;
			if (type_len == TD_TYPE_PADDING)
				continue;
			d += 8;
			len -= 4;
			break;
		default:
			len = type_len * 4;
			if (len > left - 4) {
				rd_err(r, "page", off, "event length %u does not fit in the %u bytes left",
				       len, left);
				return -1;
			}
			c->pos += 4 + len;
			d += 4;
			break;
		}
		c->ts += delta;
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

/**
 * ut_tracedat_next() - the next event in time order
 * @r: reader
 * @ev: receives the event; its str/callers stay valid until the next call
 * @lost: receives the number of events lost just before it on its CPU
 *        (UT_TRACEDAT_LOST_UNKNOWN if the file does not say how many)
 * @err: receives a message naming the file offset on corruption
 * @errlen: size of @err
 *
 * CPUs are merged by timestamp, the lower CPU first on ties.  A CPU whose
 * stream turns out corrupt (or cut short) stops there; the other CPUs are
 * still read to their ends, so every readable event is returned, in order,
 * before the error is.
 *
 * Return: 1 with @ev filled, 0 at the end, -1 after the last readable event
 * of a corrupt file (and on every later call).
 */
int ut_tracedat_next(struct ut_tracedat *r, struct ut_event *ev, uint64_t *lost, char *err,
		     size_t errlen)
{
	struct td_rcpu *best = NULL;
	int i;

	if (!r)
		return -1;
	for (i = 0; i < r->nr_cpus; i++) {
		struct td_rcpu *c = &r->cpu[i];
		int ret;

		if (c->done || c->has_ev)
			continue;
		ret = cpu_peek(r, c, i);
		if (ret < 0)
			c->done = true; /* r->errmsg has the first such error */
		c->has_ev = ret > 0;
	}
	for (i = 0; i < r->nr_cpus; i++) {
		struct td_rcpu *c = &r->cpu[i];

		if (c->has_ev && (!best || c->ev.ts < best->ev.ts))
			best = c;
	}
	if (!best) {
		if (r->failed) {
			set_err(err, errlen, "%s", r->errmsg);
			return -1;
		}
		return 0;
	}
	best->has_ev = false;
	if (ev)
		*ev = best->ev;
	if (lost)
		*lost = best->ev_lost;
	return 1;
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

/**
 * ut_tracedat_close_reader() - close the file and free the reader
 * @r: reader, may be NULL
 */
void ut_tracedat_close_reader(struct ut_tracedat *r)
{
	size_t i;

	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	for (i = 0; r->cpu && i < (size_t)r->nr_cpus; i++) {
		free(r->cpu[i].page);
		free(r->cpu[i].str);
		free(r->cpu[i].callers);
	}
	for (i = 0; i < r->nr_comms; i++)
		free(r->comms[i].comm);
	free(r->comms);
	free(r->tgids);
	free(r->cpu);
	ut_symtab_free(r->syms);
	free(r->uname);
	free(r->path);
	free(r);
}
