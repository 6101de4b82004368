// SPDX-License-Identifier: MIT
/*
 * trace.dat (trace-cmd file format version 6) writer.
 *
 * Layout, in order (all numbers little-endian, see docs/file-format.md), one
 * function per section:
 *   magic, "tracing", "6\0", endian, long size, page size    meta_file_header()
 *   header_page / header_event texts                          meta_ring_headers()
 *   ftrace event formats                                      meta_ftrace_formats()
 *   other event systems ("utrace")                            meta_systems()
 *   kallsyms                                                  meta_kallsyms()
 *   printk formats (none)                                     meta_printk()
 *   saved cmdlines                                            meta_cmdlines()
 *   CPU count, options                                        hdr_options()
 *   "flyrecord", the per-CPU (offset, size) table, the
 *   trace_clock text, padding to a page boundary              hdr_flyrecord()
 *   each CPU's ring-buffer pages back to back                 ut_tracedat_close()
 *
 * The writer keeps one page per CPU in memory and spills finished pages to an
 * unlinked temporary file per CPU next to the output, so memory stays bounded
 * however long the trace; ut_tracedat_close() stitches everything together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader/tracedat.h"
#include "reader/tracedat_format.h"

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

	td_put_le(tmp, v, n);
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

/* One kallsyms line in /proc/kallsyms' layout (tab before the module). */
static void ks_line(struct td_buf *ks, const struct ut_sym *s)
{
	char hex[19]; /* "%016llx t " by hand: a program of 100,000 functions has as many lines */
	size_t start;

	for (int i = 15; i >= 0; i--)
		hex[15 - i] = "0123456789abcdef"[(s->addr >> (4 * i)) & 15];
	hex[16] = ' ';
	hex[17] = 't';
	hex[18] = ' ';
	buf_put(ks, hex, sizeof(hex));
	start = ks->len;
	buf_str(ks, s->name);
	/* a newline or tab would break the line format: make it a space */
	for (size_t j = start; !ks->nomem && j < ks->len; j++)
		if (ks->p[j] == '\n' || ks->p[j] == '\t')
			ks->p[j] = ' ';
	if (s->module && *s->module && !strpbrk(s->module, "\n\t]")) {
		buf_str(ks, "\t[");
		buf_str(ks, s->module);
		buf_str(ks, "]");
	}
	buf_str(ks, "\n");
}

/*
 * libtraceevent never matches an address to the highest symbol (its search
 * wants a successor), so end the list with a marker just past the last one;
 * our reader drops it again.
 */
static void ks_end_marker(struct td_buf *ks, const struct ut_symtab *st, size_t n)
{
	const struct ut_sym *s = ut_symtab_at(st, n - 1);
	uint64_t end = 0;

	for (size_t i = 0; i < n; i++) {
		const struct ut_sym *x = ut_symtab_at(st, i);
		uint64_t e = x->addr + (x->size ? x->size : 1);

		if (e > end)
			end = e;
	}
	if (end > s->addr)
		buf_printf(ks, "%016llx t %s\n", (unsigned long long)end, TD_END_SYM);
}

/* Section: kallsyms, a u32 size then one line per symbol. */
static void meta_kallsyms(struct td_buf *out, const struct ut_symtab *st)
{
	struct td_buf ks = { 0 };
	size_t n = st ? ut_symtab_count(st) : 0;

	for (size_t i = 0; i < n; i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);

		if (s->name && *s->name)
			ks_line(&ks, s);
	}
	if (n)
		ks_end_marker(&ks, st, n);
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

/* Section: magic, version "6", endianness, sizeof(long), page size. */
static void meta_file_header(struct td_buf *b)
{
	buf_put(b, td_magic, sizeof(td_magic));
	buf_put(b, "6", 2);
	buf_num(b, 0, 1);               /* little endian */
	buf_num(b, 8, 1);               /* sizeof(long) */
	buf_num(b, TD_PAGE_SIZE, 4);
}

/* Section: the ring buffer's page and event header descriptions. */
static void meta_ring_headers(struct td_buf *b)
{
	buf_put(b, "header_page", 12);
	buf_num(b, td_header_page_len, 8);
	buf_put(b, td_header_page, td_header_page_len);
	buf_put(b, "header_event", 13);
	buf_num(b, td_header_event_len, 8);
	buf_put(b, td_header_event, td_header_event_len);
}

/* A u32 count of @system's formats (NULL: ftrace), then each as u64 size + text. */
static void meta_format_list(struct td_buf *b, const char *system)
{
	size_t i, n = 0;

	for (i = 0; i < td_nr_formats; i++)
		n += !td_formats[i].system == !system;
	buf_num(b, n, 4);
	for (i = 0; i < td_nr_formats; i++) {
		if (!td_formats[i].system != !system)
			continue;
		buf_num(b, strlen(td_formats[i].text), 8);
		buf_str(b, td_formats[i].text);
	}
}

/* Section: the ftrace event formats. */
static void meta_ftrace_formats(struct td_buf *b)
{
	meta_format_list(b, NULL);
}

/* Section: the other event systems, utrace's own only. */
static void meta_systems(struct td_buf *b)
{
	buf_num(b, 1, 4);
	buf_put(b, "utrace", 7);
	meta_format_list(b, "utrace");
}

/* Section: trace_printk formats; utrace has none. */
static void meta_printk(struct td_buf *b)
{
	buf_num(b, 0, 4);
}

/* Section: saved cmdlines, a u64 size then "pid comm" lines. */
static void meta_cmdlines(struct td_buf *b, const struct ut_tracedat_meta *m)
{
	struct td_buf t = { 0 };

	for (size_t i = 0; i < m->nr_cmdlines; i++) {
		const char *comm = m->cmd_comms[i];

		if (!comm || !*comm || strchr(comm, '\n'))
			continue;
		buf_printf(&t, "%d %s\n", (int)m->cmd_pids[i], comm);
	}
	buf_num(b, t.len, 8);
	buf_put(b, t.p, t.len);
	if (t.nomem)
		b->nomem = true;
	buf_free(&t);
}

/* The UT_TRACEDAT_OPT_TGIDS option's text: "pid tgid" lines. */
static void meta_tgids(struct td_buf *t, const struct ut_tracedat_meta *m)
{
	for (size_t i = 0; i < m->nr_tgids; i++)
		buf_printf(t, "%d %d\n", (int)m->tgid_pids[i], (int)m->tgid_tgids[i]);
}

/* The UT_TRACEDAT_OPT_INFO option's text. */
static char *meta_info(const struct ut_tracedat_meta *m)
{
	char *info;

	if (asprintf(&info, "tracer %s\nlost %llu\n%s%llx\n", m->tracer ? m->tracer : "nop",
		     (unsigned long long)m->lost, m->has_options ? "options " : "# ",
		     (unsigned long long)m->options) < 0)
		return NULL;
	return info;
}

/* Everything from the magic up to the saved cmdlines, into w->meta; the options' texts. */
static int meta_build(struct ut_tracedat_writer *w, const struct ut_tracedat_meta *m)
{
	struct td_buf b = { 0 }, t = { 0 };
	const char *clock = m->clock && *m->clock ? m->clock : "[local]";

	if ((m->nr_cmdlines && (!m->cmd_pids || !m->cmd_comms)) ||
	    (m->nr_tgids && (!m->tgid_pids || !m->tgid_tgids)))
		return -EINVAL;
	meta_file_header(&b);
	meta_ring_headers(&b);
	meta_ftrace_formats(&b);
	meta_systems(&b);
	meta_kallsyms(&b, m->syms);
	meta_printk(&b);
	meta_cmdlines(&b, m);
	meta_tgids(&t, m);

	char *clk = clock_text(clock), *un = m->uname ? strdup(m->uname) : NULL;
	char *info = meta_info(m);

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

/* Free the writer and whatever it holds; also for one half made by ut_tracedat_create(). */
static void writer_free(struct ut_tracedat_writer *w)
{
	for (int i = 0; w->cpus && i < w->nr_cpus; i++) {
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
		td_set_err(err, errlen, "trace.dat: bad arguments (nr_cpus %d)", m ? m->nr_cpus : 0);
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
		td_set_err(err, errlen, "%s: cmdline or tgid table without its arrays", path);
		goto fail;
	}
	if (ret)
		goto nomem;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		td_set_err(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	return w;
nomem:
	td_set_err(err, errlen, "%s: out of memory", path);
fail:
	if (w)
		writer_free(w);
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
		td_put_le(page + TD_PAGE_HDR + c->len, c->page_lost, 8);
		commit |= TD_MISSED_EVENTS | TD_MISSED_STORED;
	}
	td_put_le(page, c->page_ts, 8);
	td_put_le(page + 8, commit, 8);
	c->wpages++;
	c->nr_pages++;
	c->open = false;
	c->len = 0;
	c->page_lost = 0;
	return 0;
}

static void put_common(unsigned char *p, const struct ut_event *ev)
{
	td_put_le(p, ev->type, 2);
	p[2] = ev->flags;
	p[3] = ev->preempt;
	td_put_le(p + 4, (uint32_t)ev->pid, 4);
}

/* The event's payload in the kernel's layout; returns its length or -EINVAL. */
static int encode(const struct ut_event *ev, unsigned char *p)
{
	size_t n, i;

	memset(p, 0, 24);
	put_common(p, ev);
	switch (ev->type) {
	case UT_EV_FUNCTION:
		td_put_le(p + 8, ev->ip, 8);
		td_put_le(p + 16, ev->parent_ip, 8);
		return 24;
	case UT_EV_FUNC_REPEATS:
		/* the time back to the last call: 48 bits, top 16 and bottom 32 */
		n = ev->ts > ev->last_ts ? ev->ts - ev->last_ts : 0;
		td_put_le(p + 8, ev->ip, 8);
		td_put_le(p + 16, ev->parent_ip, 8);
		td_put_le(p + 24, ev->repeats > 0xffff ? 0xffff : ev->repeats, 2);
		td_put_le(p + 26, (uint16_t)(n >> 32), 2);
		td_put_le(p + 28, (uint32_t)n, 4);
		return 32;
	case UT_EV_PRINT:
		td_put_le(p + 8, ev->ip, 8);
		n = ev->str ? strnlen(ev->str, TD_MAX_PAYLOAD - 17) : 0;
		memcpy(p + 16, ev->str ? ev->str : "", n);
		p[16 + n] = 0;
		return (int)(16 + n + 1);
	case UT_EV_FUNCGRAPH_ENTRY:
		td_put_le(p + 8, ev->ip, 8);
		td_put_le(p + 16, ev->depth, 4);
		return 24;
	case UT_EV_FUNCGRAPH_EXIT:
		td_put_le(p + 8, ev->ip, 8);
		td_put_le(p + 16, ev->retval, 8);
		td_put_le(p + 24, ev->depth, 4);
		td_put_le(p + 28, ev->overrun, 4);
		td_put_le(p + 32, ev->calltime, 8);
		td_put_le(p + 40, ev->rettime, 8);
		return 48;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		td_put_le(p + 8, (uint32_t)ev->sig, 4);
		td_put_le(p + 12, ev->depth, 4);
		return 16;
	case UT_EV_KERNEL_STACK:
		/* variable length, size = number of entries, as Linux 6.x does */
		n = ev->callers ? ev->nr_callers : 0;
		if (n > TD_MAX_CALLERS)
			n = TD_MAX_CALLERS;
		td_put_le(p + 8, (uint32_t)n, 4);
		for (i = 0; i < n; i++)
			td_put_le(p + 16 + 8 * i, ev->callers[i], 8);
		return (int)(16 + 8 * n);
	case UT_EV_USER_STACK:
		/* fixed caller[8], unused slots zero, as the kernel does */
		n = ev->callers ? ev->nr_callers : 0;
		if (n > TD_USER_STACK_SLOTS)
			n = TD_USER_STACK_SLOTS;
		td_put_le(p + 8, (uint32_t)ev->tgid, 4);
		memset(p + 16, 0, (size_t)8 * TD_USER_STACK_SLOTS);
		for (i = 0; i < n; i++)
			td_put_le(p + 16 + 8 * i, ev->callers[i], 8);
		return 16 + 8 * TD_USER_STACK_SLOTS;
	}
	return -EINVAL;
}

static void page_put_hdr(struct td_wcpu *c, unsigned type_len, uint64_t delta, int64_t array)
{
	td_put_le(c->data + c->len, type_len | (uint32_t)(delta << 5), 4);
	c->len += 4;
	if (array >= 0) {
		td_put_le(c->data + c->len, (uint64_t)array, 4);
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

/*
 * Close the CPU's page if the next event (@need bytes at @ts) does not go
 * into it, then open a new one if none is open.
 */
static int page_make_room(struct ut_tracedat_writer *w, uint32_t cpu, uint64_t ts, size_t need)
{
	struct td_wcpu *c = &w->cpus[cpu];
	int ret;

	if (c->open) {
		uint64_t delta = ts - c->last_ts;
		size_t cap = TD_DATA_SIZE - (c->page_lost ? 8 : 0);
		size_t ext = delta >= TD_DELTA_MAX ? 8 : 0;

		/*
		 * Lost events are reported at the start of a page, so a loss
		 * closes the page, exactly like the kernel's reader does.
		 */
		if (c->pending_lost || delta >= TD_EXTEND_MAX || c->len + ext + need > cap) {
			ret = page_flush(w, (int)cpu);
			if (ret)
				return ret;
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
	return 0;
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

	ret = page_make_room(w, ev->cpu, ts, need);
	if (ret)
		return w->err = ret;
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

/* Sections: CPU count, then the options, each u16 id + u32 size + data, up to OPT_DONE. */
static void hdr_options(struct ut_tracedat_writer *w, struct td_buf *h)
{
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
}

/* Section: "flyrecord", the per-CPU (offset, size) table, trace_clock, page padding. */
static void hdr_flyrecord(struct ut_tracedat_writer *w, struct td_buf *h)
{
	uint64_t off;

	buf_put(h, "flyrecord", 10);
	/* the table's offsets depend on the header's size: compute it first */
	off = h->len + 16ULL * (uint64_t)w->nr_cpus + 8 + strlen(w->clock);
	off = (off + TD_PAGE_SIZE - 1) & ~(uint64_t)(TD_PAGE_SIZE - 1);
	for (int i = 0; i < w->nr_cpus; i++) {
		uint64_t size = w->cpus[i].nr_pages * TD_PAGE_SIZE;

		buf_num(h, off, 8);
		buf_num(h, size, 8);
		off += size;
	}
	buf_num(h, strlen(w->clock), 8);
	buf_str(h, w->clock);
	while (h->len % TD_PAGE_SIZE && !h->nomem)
		buf_put(h, "", 1);
}

/* Everything before the first page: meta, options, flyrecord table. */
static int build_header(struct ut_tracedat_writer *w, struct td_buf *h)
{
	buf_put(h, w->meta.p, w->meta.len);
	hdr_options(w, h);
	hdr_flyrecord(w, h);
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

