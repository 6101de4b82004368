// SPDX-License-Identifier: MIT
/*
 * trace.dat writer: trace-cmd's file format version 6, or version 7 with
 * zstd-compressed sections (docs/file-format.md).
 *
 * Version 6, in order (all numbers little-endian), one function per section:
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
 * Version 7 keeps the same section bodies but finds them by offset, and
 * starts with its data, written while the program runs:
 *   magic, "7\0", endian, long size, page size, "zstd\0<ver>\0",
 *   u64 offset of the options (0 until the end)               v7_file_header()
 *   the buffer section: per CPU, a chunk count and its chunks;
 *   one CPU's straight into the file as they come              v7_start(), direct_put()
 *   the other CPUs' chunks, from their temp files              v7_copy_others()
 *   the options (where everything is)                          v7_options()
 *   the six metadata sections, each compressed                 v7_meta_sections()
 *   the strings section (section descriptions)                 v7_strings()
 *   the numbers that make the file whole, last                 v7_tail()
 *
 * The writer keeps one page per CPU in memory and spills finished pages (or,
 * for version 7, compressed chunks of them) to the file or an unlinked
 * temporary file per CPU next to the output, so memory stays bounded however
 * long the trace; ut_tracedat_close() stitches everything together.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include "common/grow.h"
#include "common/ring_buffer.h"
#include "common/ring_walk.h"
#include "common/ring_headers.h"
#include "reader/outfile.h"
#include "reader/backpressure.h"
#include "reader/tracedat.h"
#include "reader/tracedat_compress.h"
#include "reader/tracedat_zpool.h"
#include "reader/tracedat_format.h"
#include "reader/tracedat_probes.h"
#include "common/procevents.h"

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
	unsigned char *data;     /* an open page's data: in wbuf, where it is finished */
	size_t len;              /* bytes used in data[] */
	bool open;               /* data[] is a started page */
	uint64_t page_ts;        /* the page header's timestamp */
	uint64_t last_ts;        /* time of the last event: deltas count from it */
	uint64_t page_lost;      /* lost count stored in this page */
	uint64_t pending_lost;   /* lost before the next event */
	unsigned char *wbuf;     /* finished pages not yet written (TD_WBUF_PAGES) */
	size_t wpages;
	uint64_t flushed;        /* version 6: bytes of pages in the temp file */
	uint64_t nr_chunks;      /* version 7: compressed chunks (file, region or temp file) */
	uint64_t zbytes;         /* and their bytes */
	uint64_t unsynced;       /* the last of them in its region not sent to writeback yet */
	uint64_t roff;           /* version 7: its region (chunk count, chunks); 0: none */
};

/*
 * Finished pages are written to the temp files this many at a time; for
 * version 7 they are one compressed chunk (1 MiB: zstd -1 compresses
 * function_graph pages 8x from 256 KiB on, barely better with more; a
 * chunk of 1 MiB rather than 256 KiB took 6-9% off the CPU of a function
 * record here: a quarter of the hand-overs to the compressing thread).
 */
#define TD_WBUF_PAGES 256

/* A region's data is sent to writeback this much at a time (region_put()). */
#define TD_SYNC_BYTES ((uint64_t)1 << 20)

/* What the header says of the trace, built from a struct ut_tracedat_meta. */
struct td_meta {
	struct td_buf sec[TD_NR_META_SECTIONS]; /* ring headers .. saved cmdlines */
	char *clock;         /* trace_clock text, newline-terminated */
	char *uname;
	char *info;          /* the UT_TRACEDAT_OPT_INFO text */
	struct td_buf tgids; /* "pid tgid\n" lines */
};

struct ut_tracedat_writer {
	char *path;
	int fd;                  /* out.fd */
	struct ut_outfile out;   /* the output, written in place or published whole */
	int nr_cpus;
	struct td_wcpu *cpus;
	struct td_meta meta;
	struct td_zenc *z;       /* version 7's compressor (metadata); NULL: version 6 */
	struct td_zpool *zp;     /* version 7's compressor of CPU data, on other cores */
	bool store;              /* version 7: chunks stored raw for now (ut_tracedat_store) */
	/*
	 * Version 7: one CPU's chunks go straight into the file as they come
	 * (the first CPU to fill a chunk: the busiest); the others' wait in
	 * temp files, copied after it at the end.  The file starts with its
	 * header and the buffer section's header; options and metadata come
	 * last (v7_close).
	 */
	int direct;              /* that CPU, -1 until chosen */
	uint64_t buf_off;        /* the buffer section's header */
	uint64_t doff;           /* the direct CPU's chunk count, its chunks after it */
	uint64_t *dends;         /* the direct CPU's zbytes after each chunk (to cut back) */
	size_t dcap;
	uint64_t reached;        /* the furthest offset a failed write got to */
	int err;                 /* first error, sticky */
	bool meta_written;       /* everything but the data is in the file: keep it */
	bool regular;            /* the output is a regular file (else never cut nor removed) */
	bool sparse;             /* fd is a regular file: other CPUs get regions in it */
	uint64_t next_region;    /* where the next region goes, 0: none yet */
	int pipe_fd;             /* a pipe given as output: version 7 is made in a temp file
				  * (fd) and copied to it at the end; -1 otherwise */
	struct td_probe_ids probes; /* the USDT probes met: their event ids */
	uint32_t pev_met;        /* bit id - UT_PEV_FIRST: a process event met */
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
	buf_num(b, ut_header_page_len, 8);
	buf_put(b, ut_header_page, ut_header_page_len);
	buf_put(b, "header_event", 13);
	buf_num(b, ut_header_event_len, 8);
	buf_put(b, ut_header_event, ut_header_event_len);
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

/* Whether process event @e was met (@met: bit id - UT_PEV_FIRST). */
static bool pev_met(const struct ut_procev *e, uint32_t met)
{
	return e->id >= UT_PEV_FIRST && e->id < UT_PEV_END && (met >> (e->id - UT_PEV_FIRST) & 1);
}

/* How many process events of @system were met. */
static size_t pev_count(const char *system, uint32_t met)
{
	size_t n, k = 0;
	const struct ut_procev *v = ut_procev_all(&n);

	for (size_t i = 0; i < n; i++)
		k += pev_met(&v[i], met) && !strcmp(v[i].system, system);
	return k;
}

/* The formats of the process events of @system met, each as u64 size + text. */
static void pev_formats(struct td_buf *b, const char *system, uint32_t met)
{
	size_t n;
	const struct ut_procev *v = ut_procev_all(&n);

	for (size_t i = 0; i < n; i++) {
		char *text;

		if (!pev_met(&v[i], met) || strcmp(v[i].system, system) != 0)
			continue;
		text = ut_procev_format(&v[i]);
		if (!text) {
			b->nomem = true;
			buf_num(b, 0, 8);
			continue;
		}
		buf_num(b, strlen(text), 8);
		buf_str(b, text);
		free(text);
	}
}

/* A system of process events only (sched, signal), if one was met. */
static void pev_system(struct td_buf *b, const char *system, uint32_t met)
{
	size_t n = pev_count(system, met);

	if (!n)
		return;
	buf_put(b, system, strlen(system) + 1);
	buf_num(b, n, 4);
	pev_formats(b, system, met);
}

/*
 * Section: the other event systems: utrace's own (with its process events
 * met), the kernel's systems of the process events met, then the USDT
 * providers recorded.
 */
static void meta_systems(struct td_buf *b, const struct ut_tracedat_meta *m,
			 const struct td_probe_ids *ids, uint32_t met)
{
	struct td_probe_system *sys = NULL;
	size_t n = 0, nu = 0;

	if (td_probe_systems(ids, m->probes, &sys, &n))
		b->nomem = true;
	buf_num(b, 1 + n + !!pev_count("sched", met) + !!pev_count("signal", met), 4);
	buf_put(b, "utrace", 7);
	for (size_t i = 0; i < td_nr_formats; i++)
		nu += td_formats[i].system && !strcmp(td_formats[i].system, "utrace");
	buf_num(b, nu + pev_count("utrace", met), 4);
	for (size_t i = 0; i < td_nr_formats; i++) {
		if (!td_formats[i].system || strcmp(td_formats[i].system, "utrace") != 0)
			continue;
		buf_num(b, strlen(td_formats[i].text), 8);
		buf_str(b, td_formats[i].text);
	}
	pev_formats(b, "utrace", met);
	pev_system(b, "sched", met);
	pev_system(b, "signal", met);
	for (size_t i = 0; i < n; i++) {
		buf_put(b, sys[i].name, strlen(sys[i].name) + 1);
		buf_num(b, sys[i].n, 4);
		for (size_t k = 0; k < sys[i].n; k++) {
			buf_num(b, strlen(sys[i].texts[k]), 8);
			buf_str(b, sys[i].texts[k]);
		}
	}
	td_probe_systems_free(sys, n);
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

/* The six metadata sections, in file order (trace-cmd's HEADER_INFO .. CMDLINES). */
static void meta_sections(struct td_buf sec[TD_NR_META_SECTIONS], const struct ut_tracedat_meta *m,
			  const struct td_probe_ids *ids, uint32_t met)
{
	meta_ring_headers(&sec[0]);
	meta_ftrace_formats(&sec[1]);
	meta_systems(&sec[2], m, ids, met);
	meta_kallsyms(&sec[3], m->syms);
	meta_printk(&sec[4]);
	meta_cmdlines(&sec[5], m);
}

static void sections_free(struct td_buf sec[TD_NR_META_SECTIONS])
{
	for (int i = 0; i < TD_NR_META_SECTIONS; i++)
		buf_free(&sec[i]);
}

static void meta_free(struct td_meta *t)
{
	sections_free(t->sec);
	buf_free(&t->tgids);
	free(t->clock);
	free(t->uname);
	free(t->info);
}

/* The metadata sections and the options' texts into w->meta. */
static int meta_build(struct ut_tracedat_writer *w, const struct ut_tracedat_meta *m)
{
	struct td_meta t = {0};
	const char *clock = m->clock && *m->clock ? m->clock : "[local]";
	bool nomem = false;

	if ((m->nr_cmdlines && (!m->cmd_pids || !m->cmd_comms)) ||
	    (m->nr_tgids && (!m->tgid_pids || !m->tgid_tgids)))
		return -EINVAL;
	meta_sections(t.sec, m, &w->probes, w->pev_met);
	meta_tgids(&t.tgids, m);
	for (int i = 0; i < TD_NR_META_SECTIONS; i++)
		nomem |= t.sec[i].nomem;
	t.clock = clock_text(clock);
	t.uname = m->uname ? strdup(m->uname) : NULL;
	t.info = meta_info(m);
	if (nomem || t.tgids.nomem || !t.clock || (m->uname && !t.uname) || !t.info) {
		meta_free(&t);
		return -ENOMEM;
	}
	meta_free(&w->meta);
	w->meta = t;
	return 0;
}

/* Free the writer and whatever it holds; also for one half made by ut_tracedat_create(). */
static void writer_free(struct ut_tracedat_writer *w)
{
	td_zpool_free(w->zp);
	for (int i = 0; w->cpus && i < w->nr_cpus; i++) {
		if (w->cpus[i].fd >= 0)
			close(w->cpus[i].fd);
		free(w->cpus[i].wbuf);
	}
	if (w->pipe_fd >= 0 && w->fd >= 0)
		close(w->fd); /* the temp file a pipe's trace is made in */
	ut_outfile_close(&w->out, false);
	td_zenc_free(w->z);
	free(w->dends);
	meta_free(&w->meta);
	td_probe_ids_free(&w->probes);
	free(w->cpus);
	free(w->path);
	free(w);
}

static int v7_start(struct ut_tracedat_writer *w);

/*
 * Whether the file system of @fd takes holes out without moving data
 * (COLLAPSE_RANGE: ext4, xfs, f2fs).  Elsewhere regions would be copied
 * down at the end, needing their size again in free space (tmpfs: a full
 * one then kept nothing), so the other CPUs keep their temp files there.
 */
static bool holes_collapse(int fd)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return false;
	switch ((unsigned long)sf.f_type) {
	case 0xEF53UL:     /* ext2/3/4 */
	case 0x58465342UL: /* xfs */
	case 0xF2F52010UL: /* f2fs */
		return true;
	default:
		return false;
	}
}

/*
 * @path opened for @w (reader/outfile.c: in place, or @whole: published at
 * close).  Version 7 is written in place (pwrite): a pipe gets it through
 * an unlinked temp file in $TMPDIR, copied into the pipe at the end.
 * Return: 0 or a negative errno.
 */
static int open_for(struct ut_tracedat_writer *w, const char *path, bool whole)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	int ret = ut_outfile_open(&w->out, path, whole);

	w->fd = w->out.fd;
	if (ret || fstat(w->fd, &st) < 0)
		return ret ? ret : -errno;
	w->regular = S_ISREG(st.st_mode);
	w->sparse = w->regular && (fcntl(w->fd, F_GETFL) & O_ACCMODE) == O_RDWR &&
		    holes_collapse(w->fd);
	if (!w->z || lseek(w->fd, 0, SEEK_CUR) >= 0 || errno != ESPIPE)
		return 0;
	w->pipe_fd = w->fd;
	w->fd = open(tmp && *tmp ? tmp : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	w->sparse = w->fd >= 0 && holes_collapse(w->fd);
	return w->fd < 0 ? -errno : 0;
}

static int copy_pages(int out, int in, uint64_t size);

/* A pipe's trace, made in the temp file, into the pipe. */
static int to_pipe(struct ut_tracedat_writer *w)
{
	struct stat st;

	if (fstat(w->fd, &st) < 0)
		return -errno;
	return copy_pages(w->pipe_fd, w->fd, (uint64_t)st.st_size);
}

static int chunk_out(void *ctx, int cpu, const unsigned char *chunk, size_t n);

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
	w->fd = w->out.fd = -1;
	w->pipe_fd = -1;
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
	if (m->compress) {
		w->z = td_zenc_new(m->zstd_level);
		w->zp = td_zpool_new(m->zstd_level, td_zpool_threads(), chunk_out, w);
		if (!w->z || !w->zp)
			goto nomem;
	}
	ret = open_for(w, path, m->whole);
	if (!ret && w->z)
		ret = v7_start(w);
	if (ret) {
		td_set_err(err, errlen, "%s: %s", path, strerror(-ret));
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

static int pwrite_all(struct ut_tracedat_writer *w, const void *data, size_t n, uint64_t at)
{
	const unsigned char *p = data;

	while (n) {
		ssize_t got = pwrite(w->fd, p, n, (off_t)at);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			w->reached = at;
			return got < 0 ? -errno : -EIO;
		}
		p += got;
		at += (uint64_t)got;
		n -= (size_t)got;
	}
	return 0;
}

/* A version 7 chunk of the direct CPU, straight into the file after its others. */
static int direct_put(struct ut_tracedat_writer *w, struct td_wcpu *c, const unsigned char *chunk,
		      size_t n)
{
	int ret;

	if (c->nr_chunks == w->dcap && ut_grow(&w->dends, &w->dcap, sizeof(*w->dends), 256))
		return -ENOMEM;
	ret = pwrite_all(w, chunk, n, w->doff + 4 + c->zbytes);
	if (ret)
		return ret;
	c->zbytes += n;
	w->dends[c->nr_chunks++] = c->zbytes;
	return 0;
}

/*
 * Version 7 regions.  Every CPU's chunks go straight into the file as they
 * come: the first CPU to fill a chunk (the busiest) right after the buffer
 * section's header (direct_put()), each next one in a region of its own
 * further on, the space between left as a hole (the file is sparse while
 * the trace is being made).  At the end the holes are taken out
 * (v7_settle(): fallocate's COLLAPSE_RANGE, which moves no data on ext4,
 * xfs and f2fs; if it fails there, the regions are copied down).  Before,
 * the other CPUs waited in temp files copied after the program: 40 ms for
 * 100 MB here.  A CPU whose region cannot be written (a file-size limit, a
 * file system's largest file) or that outgrows it keeps its chunks in a
 * temp file, copied at the end as before; so do all CPUs but the first on
 * other file systems (holes_collapse()) and when the output is not a
 * regular file.
 */
#define TD_REGION_ALIGN ((uint64_t)64 << 10) /* a multiple of any block size */

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* A region's size: 4 TiB shared by the CPUs, 1 TiB at most each. */
static uint64_t region_span(const struct ut_tracedat_writer *w)
{
	uint64_t span = ((uint64_t)4 << 40) / (uint64_t)w->nr_cpus;

	if (span > ((uint64_t)1 << 40))
		span = (uint64_t)1 << 40;
	return span / TD_REGION_ALIGN * TD_REGION_ALIGN;
}

/* A region for @c, if the file can have one there. */
static void region_open(struct ut_tracedat_writer *w, struct td_wcpu *c)
{
	uint64_t span = region_span(w), at;
	struct rlimit rl;

	if (!w->sparse)
		return;
	at = w->next_region ? w->next_region : align_up(w->doff, TD_REGION_ALIGN) + span;
	/* past a file-size limit a write is a SIGXFSZ, not an error */
	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    at + span > (uint64_t)rl.rlim_cur)
		return;
	c->roff = at;
	w->next_region = at + span;
}

/* @c's region, full: its chunks to a temp file, where the next ones go too. */
static int region_leave(struct ut_tracedat_writer *w, struct td_wcpu *c, int cpu)
{
	loff_t from = (loff_t)(c->roff + 4);
	uint64_t left = c->zbytes;

	c->fd = cpu_tmpfile(w, cpu);
	if (c->fd < 0)
		return c->fd;
	while (left) {
		ssize_t r = copy_file_range(w->fd, &from, c->fd, NULL, (size_t)left, 0);

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		left -= (uint64_t)r;
	}
	c->roff = 0;
	return 0;
}

/* A chunk into @c's region; 1: the region cannot take it (use the temp file). */
static int region_put(struct ut_tracedat_writer *w, struct td_wcpu *c, int cpu,
		      const unsigned char *chunk, size_t n)
{
	int ret;

	if (4 + c->zbytes + n > region_span(w)) {
		ret = region_leave(w, c, cpu);
		return ret ? ret : 1;
	}
	ret = pwrite_all(w, chunk, n, c->roff + 4 + c->zbytes);
	if (ret && !c->nr_chunks) {
		/* its first write: too far for this file (EFBIG), not a failing disk */
		c->roff = 0;
		w->reached = 0;
		return 1;
	}
	if (ret)
		return ret;
	c->nr_chunks++;
	c->zbytes += n;
	/*
	 * Written back now rather than in v7_settle(): COLLAPSE_RANGE writes
	 * back what it moves and waits for it (80 ms for 110 MB here).  A MiB
	 * at a time: a call per chunk (a few KiB of function records) sent an
	 * I/O each, and each cost the writer a VM exit (2-5% of the CPU of a
	 * function record here).
	 */
	c->unsynced = (c->unsynced < c->zbytes - n ? c->unsynced : c->zbytes - n) + n;
	if (c->unsynced >= TD_SYNC_BYTES) {
		sync_file_range(w->fd, (off_t)(c->roff + 4 + c->zbytes - c->unsynced),
				(off_t)c->unsynced, SYNC_FILE_RANGE_WRITE);
		c->unsynced = 0;
	}
	return 0;
}

/*
 * A version 7 chunk of @cpu, compressed, in the order it was handed to the
 * pool: the file, or the CPU's temp file.  Called back by the pool on the
 * writer's thread.
 */
static int chunk_out(void *ctx, int cpu, const unsigned char *chunk, size_t n)
{
	struct ut_tracedat_writer *w = ctx;
	struct td_wcpu *c = &w->cpus[cpu];
	int ret;

	if (!n)
		return -ENOMEM;
	if (cpu == w->direct)
		return direct_put(w, c, chunk, n);
	if (c->fd < 0 && !c->roff)
		region_open(w, c);
	if (c->roff) {
		ret = region_put(w, c, cpu, chunk, n);
		if (ret <= 0)
			return ret;
	}
	if (c->fd < 0) {
		c->fd = cpu_tmpfile(w, cpu);
		if (c->fd < 0)
			return c->fd;
	}
	ret = write_all(c->fd, chunk, n);
	if (!ret) { /* only whole chunks count: a cut one is not copied */
		c->nr_chunks++;
		c->zbytes += n;
	}
	return ret;
}

/*
 * Hand the CPU's buffered finished pages on: version 7 to the compression
 * pool (the buffer goes with them), version 6 to the CPU's temp file.
 */
static int wbuf_flush(struct ut_tracedat_writer *w, int cpu)
{
	struct td_wcpu *c = &w->cpus[cpu];
	size_t plain = c->wpages * TD_PAGE_SIZE;
	int ret;

	if (!c->wpages)
		return 0;
	c->wpages = 0;
	if (w->zp) {
		unsigned char *buf = c->wbuf;

		if (w->direct < 0)
			w->direct = cpu;
		c->wbuf = NULL;
		return td_zpool_submit(w->zp, cpu, buf, plain, w->store);
	}
	if (c->fd < 0) {
		c->fd = cpu_tmpfile(w, cpu);
		if (c->fd < 0)
			return c->fd;
	}
	ret = write_all(c->fd, c->wbuf, plain);
	c->flushed += ret ? 0 : plain;
	return ret;
}

/*
 * Tests: UTRACE_TEST_WRITE_DELAY_US=N makes each finished page wait N µs
 * (tests/live/527 catches an extract in the middle of its file).
 */
static void test_delay(void)
{
	static long delay_us = -1;

	ut_test_delay_us("UTRACE_TEST_WRITE_DELAY_US", &delay_us);
}

/*
 * Where the CPU's next page goes: the next of its write buffer, which is
 * written out (version 7: handed to the pool) first if full.  Events are
 * written there directly, the page finished in place (page_flush()).
 */
static int page_start(struct ut_tracedat_writer *w, int cpu)
{
	struct td_wcpu *c = &w->cpus[cpu];
	int ret;

	if (c->wpages == TD_WBUF_PAGES) {
		ret = wbuf_flush(w, cpu);
		if (ret)
			return ret;
	}
	if (!c->wbuf) { /* version 7 handed the last one to the pool */
		c->wbuf = w->zp ? td_zpool_buf(w->zp, (size_t)TD_WBUF_PAGES * TD_PAGE_SIZE)
				: malloc((size_t)TD_WBUF_PAGES * TD_PAGE_SIZE);
		if (!c->wbuf)
			return -ENOMEM;
	}
	c->data = c->wbuf + c->wpages * TD_PAGE_SIZE + TD_PAGE_HDR;
	return 0;
}

/* Finish the CPU's open page in its write buffer: header, zeros after the data, lost count. */
static int page_flush(struct ut_tracedat_writer *w, int cpu)
{
	struct td_wcpu *c = &w->cpus[cpu];
	uint64_t commit = c->len;
	unsigned char *page;

	if (!c->open)
		return 0;
	page = c->data - TD_PAGE_HDR;
	test_delay();
	memset(c->data + c->len, 0, TD_DATA_SIZE - c->len);
	if (c->page_lost) {
		/* the kernel appends the count after the data and flags the commit */
		td_put_le(c->data + c->len, c->page_lost, 8);
		commit |= TD_MISSED_EVENTS | TD_MISSED_STORED;
	}
	td_put_le(page, c->page_ts, 8);
	td_put_le(page + 8, commit, 8);
	c->wpages++;
	c->nr_pages++;
	c->open = false;
	c->data = NULL;
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

/* The length of the event's payload in the kernel's layout, or -EINVAL. */
static int payload_len(const struct ut_event *ev)
{
	size_t n;

	switch (ev->type) {
	case UT_EV_FUNCTION:
	case UT_EV_FUNCGRAPH_ENTRY:
	case UT_EV_FUNCGRAPH_INLINED:
		return 24;
	case UT_EV_FUNC_REPEATS:
		return 32;
	case UT_EV_FUNCGRAPH_EXIT:
		return 48;
	case UT_EV_PRINT:
		return (int)(16 + (ev->str ? strnlen(ev->str, TD_MAX_PAYLOAD - 17) : 0) + 1);
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		return 16;
	case UT_EV_KERNEL_STACK:
		/* variable length, size = number of entries, as Linux 6.x does */
		n = ev->callers ? ev->nr_callers : 0;
		return (int)(16 + 8 * (n > TD_MAX_CALLERS ? TD_MAX_CALLERS : n));
	case UT_EV_USER_STACK:
		return 16 + 8 * TD_USER_STACK_SLOTS;
	}
	if (ev->type >= UT_PEV_FIRST && ev->type < UT_PEV_END)
		return (int)(8 + ev->raw_len); /* a process event: its fields as recorded */
	if (ev->type >= UT_EV_PROBE_FIRST_ID && ev->nargs <= UT_USDT_MAX_ARGS)
		/* a USDT probe: its arguments' slots, then its strings */
		return (int)(8 + (ev->argbytes > 8 * ev->nargs && ev->argbytes <= UT_EV_MAX_ARGBYTES
					  ? ev->argbytes
					  : 8 * ev->nargs));
	return -EINVAL;
}

/*
 * A call's fields after the common ones, in the kernel's layout: function
 * (ip, parent_ip), funcgraph_exit (func, retval, depth, overrun, calltime,
 * @rettime), else funcgraph_entry's (func, depth, 4 bytes of padding).
 * encode() and the record writer's fast path share it.
 */
static inline void put_call(unsigned char *p, const struct ut_call *c, uint64_t rettime)
{
	td_put_le(p + 8, c->ip, 8);
	if (c->type == UT_EV_FUNCTION) {
		td_put_le(p + 16, c->parent_ip, 8);
	} else if (c->type == UT_EV_FUNCGRAPH_EXIT) {
		td_put_le(p + 16, c->retval, 8);
		td_put_le(p + 24, c->depth, 4);
		td_put_le(p + 28, c->overrun, 4);
		td_put_le(p + 32, c->calltime, 8);
		td_put_le(p + 40, rettime, 8);
	} else {
		td_put_le(p + 16, c->depth, 4);
		td_put_le(p + 20, 0, 4);
	}
}

/*
 * The event's payload in the kernel's layout, @len bytes (payload_len())
 * and zeros up to @alen, written straight into the page.
 */
static void encode(const struct ut_event *ev, unsigned char *p, size_t len, size_t alen)
{
	size_t n, i;

	put_common(p, ev);
	switch (ev->type) {
	case UT_EV_FUNCTION:
	case UT_EV_FUNCGRAPH_ENTRY:
	case UT_EV_FUNCGRAPH_INLINED:
	case UT_EV_FUNCGRAPH_EXIT:
		put_call(p, &(struct ut_call){.type = ev->type, .ip = ev->ip, .parent_ip = ev->parent_ip,
					       .calltime = ev->calltime, .retval = ev->retval,
					       .depth = ev->depth, .overrun = ev->overrun},
			 ev->rettime);
		break;
	case UT_EV_FUNC_REPEATS:
		/* the time back to the last call: 48 bits, top 16 and bottom 32 */
		n = ev->ts > ev->last_ts ? ev->ts - ev->last_ts : 0;
		td_put_le(p + 8, ev->ip, 8);
		td_put_le(p + 16, ev->parent_ip, 8);
		td_put_le(p + 24, ev->repeats > 0xffff ? 0xffff : ev->repeats, 2);
		td_put_le(p + 26, (uint16_t)(n >> 32), 2);
		td_put_le(p + 28, (uint32_t)n, 4);
		break;
	case UT_EV_PRINT:
		td_put_le(p + 8, ev->ip, 8);
		memcpy(p + 16, ev->str ? ev->str : "", len - 17);
		p[len - 1] = 0;
		break;
	case UT_EV_SIGNAL_ENTER:
	case UT_EV_SIGNAL_EXIT:
		td_put_le(p + 8, (uint32_t)ev->sig, 4);
		td_put_le(p + 12, ev->depth, 4);
		break;
	case UT_EV_KERNEL_STACK:
		n = (len - 16) / 8;
		td_put_le(p + 8, (uint32_t)n, 4);
		td_put_le(p + 12, 0, 4);
		for (i = 0; i < n; i++)
			td_put_le(p + 16 + 8 * i, ev->callers[i], 8);
		break;
	case UT_EV_USER_STACK:
		/* fixed caller[8], unused slots zero, as the kernel does */
		n = ev->callers ? ev->nr_callers : 0;
		if (n > TD_USER_STACK_SLOTS)
			n = TD_USER_STACK_SLOTS;
		td_put_le(p + 8, (uint32_t)ev->tgid, 4);
		td_put_le(p + 12, 0, 4);
		memset(p + 16, 0, (size_t)8 * TD_USER_STACK_SLOTS);
		for (i = 0; i < n; i++)
			td_put_le(p + 16 + 8 * i, ev->callers[i], 8);
		break;
	default:
		if (ev->type < UT_EV_PROBE_FIRST_ID) { /* a process event */
			memcpy(p + 8, ev->raw, len - 8);
			break;
		}
		/* a USDT probe (payload_len() checked): slots, then strings as they are */
		for (i = 0; i < ev->nargs; i++)
			td_put_le(p + 8 + 8 * i, ev->args[i], 8);
		if (len > 8 + 8 * (size_t)ev->nargs)
			memcpy(p + 8 + (size_t)8 * ev->nargs,
			       (const uint8_t *)ev->args + (size_t)8 * ev->nargs,
			       (size_t)len - 8 - (size_t)8 * ev->nargs);
		break;
	}
	memset(p + len, 0, alen - len);
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

/* The bytes of events @c's open page takes (a loss count stored in it takes 8). */
static inline size_t page_cap(const struct td_wcpu *c)
{
	return TD_DATA_SIZE - (c->page_lost ? 8 : 0);
}

/*
 * Whether an event of @alen payload bytes, @delta after the page's last,
 * goes into a page holding @len of @cap bytes with a plain header: room, and
 * no time extend (a time backwards is a delta too large too).
 */
static inline bool page_takes_in_line(size_t len, size_t alen, uint64_t delta, size_t cap)
{
	return delta < TD_DELTA_MAX && len + alen + 4 <= cap;
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
		size_t cap = page_cap(c);
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
		ret = page_start(w, (int)cpu);
		if (ret)
			return ret;
		c->open = true;
		c->len = 0;
		c->page_ts = ts;
		c->last_ts = ts;
		c->page_lost = c->pending_lost;
		c->pending_lost = 0;
	}
	return 0;
}

/*
 * An event of @alen payload bytes (a multiple of 4) on @cpu at @ts: its
 * time clamped to the CPU's last, the page made room in, the event header
 * (and a time extend) written.  Return: where its payload goes, or NULL
 * (a write error, sticky in w->err).
 */
static unsigned char *reserve_slow(struct ut_tracedat_writer *w, uint32_t cpu, uint64_t ts,
				   size_t alen)
{
	struct td_wcpu *c = &w->cpus[cpu];
	size_t need = alen + (alen > TD_MAX_SMALL_DATA ? 8 : 4);
	unsigned char *p;
	uint64_t delta;
	int ret;

	if ((c->open || c->nr_pages) && ts < c->last_ts)
		ts = c->last_ts;
	ret = page_make_room(w, cpu, ts, need);
	if (ret) {
		w->err = ret;
		return NULL;
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
	p = c->data + c->len;
	c->len += alen;
	c->last_ts = ts;
	return p;
}

/*
 * reserve(), its common case in line (the record writer's millions of
 * calls): the open page has room, no loss to tell before the event, its
 * delta fits the header.
 */
static inline __attribute__((always_inline)) unsigned char *
reserve(struct ut_tracedat_writer *w, uint32_t cpu, uint64_t ts, size_t alen)
{
	struct td_wcpu *c = &w->cpus[cpu];
	unsigned char *p;

	if (alen > TD_MAX_SMALL_DATA || !c->open || c->pending_lost ||
	    !page_takes_in_line(c->len, alen, ts - c->last_ts, page_cap(c)))
		return reserve_slow(w, cpu, ts, alen);
	__builtin_prefetch(c->data + c->len + 256, 1); /* the pool's core read it last */
	page_put_hdr(c, (unsigned)(alen / 4), ts - c->last_ts, -1);
	p = c->data + c->len;
	c->len += alen;
	c->last_ts = ts;
	return p;
}

/* A call's payload bytes: funcgraph_exit's, or function's and funcgraph_entry's. */
static inline size_t call_alen(int type)
{
	return type == UT_EV_FUNCGRAPH_EXIT ? 48 : 24;
}

/* A call's payload at @p: common fields (type, flags 0, preempt count 0, pid), then put_call(). */
static inline void put_call_payload(unsigned char *p, int32_t pid, const struct ut_call *ev)
{
	td_put_le(p, (uint32_t)ev->type, 4);
	td_put_le(p + 4, (uint32_t)pid, 4);
	put_call(p, ev, ev->ts);
}

/*
 * A call (function, graph entry or exit) at its own time on its CPU: the
 * same bytes as ut_tracedat_write() of the struct ut_event with these
 * fields (flags and preempt count 0).  0 or the write error.
 */
static inline __attribute__((always_inline)) int
put_call_event(struct ut_tracedat_writer *w, int32_t pid, const struct ut_call *ev)
{
	unsigned char *p = reserve(w, ev->cpu, ev->ts, call_alen(ev->type));

	if (!p)
		return w->err;
	put_call_payload(p, pid, ev);
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
	struct ut_event probe;
	unsigned char *p;
	size_t plen, alen;
	int len;

	if (!w || !ev)
		return -EINVAL;
	if (w->err)
		return w->err;
	if (ev->cpu >= (uint32_t)w->nr_cpus)
		return -EINVAL;
	if (ev->type == UT_EV_PROBE) {
		/* each probe's event has its id; its format is written with the metadata */
		probe = *ev;
		probe.type = td_probe_id(&w->probes, ev->ip, ev->nargs);
		if (!probe.type || (ev->nargs && !ev->args))
			return 0; /* more probes than ids: not written */
		ev = &probe;
	} else if (ev->type == UT_EV_STATIC) {
		/* its id is its trace.dat id; its format is written with the metadata */
		if (ev->evid < UT_PEV_FIRST || ev->evid >= UT_PEV_END || !ev->raw ||
		    ev->raw_len > TD_MAX_PAYLOAD - 8)
			return 0;
		probe = *ev;
		probe.type = ev->evid;
		w->pev_met |= 1u << (ev->evid - UT_PEV_FIRST);
		ev = &probe;
	}
	len = payload_len(ev);
	if (len < 0)
		return len;
	plen = (size_t)len;
	alen = (plen + 3) & ~(size_t)3;
	p = reserve(w, ev->cpu, ev->ts, alen);
	if (!p)
		return w->err;
	encode(ev, p, plen, alen);
	return 0;
}

/**
 * ut_tracedat_write_call() - ut_tracedat_write() for a function or graph event
 * @w: writer
 * @pid: its thread (common_pid)
 * @ev: the event; ev->cpu selects the stream
 *
 * The record writer's fast path: the same bytes as ut_tracedat_write() of
 * the struct ut_event with these fields (and flags, preempt count 0), with
 * no such struct filled and read back per event.
 *
 * Return: as ut_tracedat_write().
 */
int ut_tracedat_write_call(struct ut_tracedat_writer *w, int32_t pid, const struct ut_call *ev)
{
	bool exit = ev->type == UT_EV_FUNCGRAPH_EXIT;

	if (w->err)
		return w->err;
	if (ev->cpu >= (uint32_t)w->nr_cpus ||
	    (!exit && ev->type != UT_EV_FUNCTION && ev->type != UT_EV_FUNCGRAPH_ENTRY))
		return -EINVAL;
	return put_call_event(w, pid, ev);
}

/*
 * One ring record into the file if it is a call (ut_tracedat_write_call()
 * of it, in line): 1; 0 if it is not a call; a write error.  A CPU the file
 * has no stream for is CPU 0.
 */
static inline __attribute__((always_inline)) int
put_ring_call(struct ut_tracedat_writer *w, int32_t pid, const struct ut_clockconv *clk,
	      const uint8_t *rec, uint64_t raw, uint64_t ts)
{
	struct ut_call call = {0};
	int ret;

	if (!ut_rb_decode_call(rec, raw, ts, clk, &call))
		return 0;
	if (call.cpu >= (uint32_t)w->nr_cpus)
		call.cpu = 0;
	ret = put_call_event(w, pid, &call);
	return ret ? ret : 1;
}

/**
 * ut_tracedat_write_refs() - the record writer's run of one thread's calls
 * @w: writer
 * @pid: the thread (common_pid)
 * @clk: its clock (a graph exit's calltime)
 * @r: its records (common/ring_buffer.h), in time order
 * @n: how many
 * @err: set to the write error that stopped the run, if one did
 *
 * ut_tracedat_write_call() of each record's call, up to the first record
 * that is not a call, in one loop.
 *
 * Return: the number of records written.
 */
size_t ut_tracedat_write_refs(struct ut_tracedat_writer *w, int32_t pid,
			      const struct ut_clockconv *clk, const struct ut_rb_ref *r, size_t n,
			      int *err)
{
	size_t i;

	if (w->err) {
		*err = w->err;
		return 0;
	}
	for (i = 0; i < n; i++) {
		int ret = put_ring_call(w, pid, clk, r[i].rec, r[i].raw, r[i].ts);

		if (ret < 0) {
			*err = ret;
			return i;
		}
		if (!ret)
			break;
	}
	return i;
}

struct ring_ctx {
	struct ut_tracedat_writer *w;
	struct ut_tracedat_ring_run *run;
};

static inline __attribute__((always_inline)) int ring_one(void *ctx, const uint8_t *rec,
							   uint64_t raw)
{
	struct ring_ctx *k = ctx;
	struct ut_tracedat_ring_run *run = k->run;
	uint64_t ts = ut_clock_to_trace(run->clk, raw);
	int ret = 0;

	if (ts < run->late_before)
		run->late++;
	if (ts > run->limit || run->held) {
		run->held = true; /* the rest of the run is the caller's */
		return run->later(run->ctx, rec, raw, ts);
	}
	if (ts > run->last_ts)
		run->last_ts = ts;
	if (!run->err) {
		ret = put_ring_call(k->w, run->pid, run->clk, rec, raw, ts);
		if (ret > 0) {
			run->calls++;
			return 0;
		}
		if (ret < 0)
			run->err = ret;
	}
	if (run->err && ut_rb_decode_call(rec, raw, ts, run->clk, &(struct ut_call){0})) {
		run->unwritten++; /* the file stopped taking events */
		return 0;
	}
	return run->other(run->ctx, rec, raw, ts, run->err);
}

/*
 * The fused walk's common case, calls' records in a row (the function
 * tracer's whole stream, function_graph's entries and exits): as
 * ring_one() would write each, in one loop that keeps the page's length,
 * the CPU's last time and the running time in registers.  It stops, for
 * ring_one() to go on, at the first record that is not a call on the CPU
 * of the first, or that reserve() would not take in line (no room in the
 * page, a delta too large or backwards), or that is past run->limit; and
 * takes nothing after a write error or while a loss is to be told.
 */
static inline __attribute__((always_inline)) size_t
ring_call_run(void *ctx, const uint8_t *p, size_t room, uint64_t *tsp)
{
	struct ring_ctx *k = ctx;
	struct ut_tracedat_ring_run *run = k->run;
	/* copies: the page's bytes may alias anything, and the loop keeps these in registers */
	const struct ut_clockconv clk = *run->clk;
	const uint64_t limit = run->limit, late_before = run->late_before;
	uint64_t w0, raw = *tsp, last, newest = run->last_ts, calls = 0, late = 0;
	uint32_t cpu;
	int32_t pid = run->pid;
	const uint8_t *p0 = p, *end = p + room;
	struct td_wcpu *c;
	unsigned char *d;
	size_t len, cap;

	memcpy(&w0, p, sizeof(w0));
	cpu = (uint32_t)((w0 >> UT_REC_CPU_SHIFT) & UT_REC_CPU_MASK);
	if (run->held || run->err || cpu >= (uint32_t)k->w->nr_cpus)
		return 0;
	c = &k->w->cpus[cpu];
	if (!c->open || c->pending_lost)
		return 0;
	d = c->data;
	len = c->len;
	last = c->last_ts;
	cap = page_cap(c);
	while (end - p >= UT_REC_SIZE) {
		struct ut_call call;
		uint64_t w1, r, ts;
		unsigned type;
		size_t size, alen;

		memcpy(&w0, p, sizeof(w0));
		memcpy(&w1, p + 8, sizeof(w1));
		type = (unsigned)(w0 >> UT_REC_TYPE_SHIFT);
		size = type == UT_REC_GRAPH_EXIT ? UT_REC_EXIT_SIZE : UT_REC_SIZE; /* GRAPH_RET: 16 */
		if (!ut_rb_rec_call(type) || ((w0 >> UT_REC_CPU_SHIFT) & UT_REC_CPU_MASK) != cpu ||
		    (size_t)(end - p) < size)
			break;
		r = raw + (w1 >> UT_REC_DELTA_SHIFT);
		ts = ut_clock_to_trace(&clk, r);
		if (ts > limit || !ut_rb_decode_call(p, r, ts, &clk, &call))
			break;
		alen = call_alen(call.type);
		if (!page_takes_in_line(len, alen, ts - last, cap))
			break;
		__builtin_prefetch(p + 512);
		__builtin_prefetch(d + len + 256, 1); /* the pool's core read it last */
		late += ts < late_before;
		/* reserve()'s header, then put_call_event()'s payload */
		td_put_le(d + len, (uint32_t)(alen / 4) | (uint32_t)((ts - last) << 5), 4);
		put_call_payload(d + len + 4, pid, &call);
		len += alen + 4;
		last = ts;
		raw = r;
		if (ts > newest)
			newest = ts;
		calls++;
		p += size;
	}
	c->len = len;
	c->last_ts = last;
	run->last_ts = newest;
	run->calls += calls;
	run->late += late;
	*tsp = raw;
	return (size_t)(p - p0);
}

/**
 * ut_tracedat_write_ring() - the record writer's fused walk of a chunk
 * @w: writer
 * @run: the thread, what to do with records that are not calls, and counts
 * @d: the thread's decoder (ut_rb_walk())
 * @bytes: ring data from stream position @start, @len bytes
 *
 * ut_rb_walk() of the chunk with each call written as it is met (as
 * ut_tracedat_write_refs() does), the other records handed to run->other:
 * the chunk goes from the ring's layout to the file's in one pass, with no
 * index between.  From the first record later than run->limit on, every
 * record goes to run->later instead (run->held).  Counts add up in @run.
 */
void ut_tracedat_write_ring(struct ut_tracedat_writer *w, struct ut_tracedat_ring_run *run,
			    struct ut_rb_decoder *d, const uint8_t *bytes, size_t len, uint64_t start)
{
	struct ring_ctx k = {w, run};

	if (w->err && !run->err)
		run->err = w->err;
	ut_rb_walk_inline(d, bytes, len, start, ring_one, ring_call_run, &k);
}

void ut_tracedat_store(struct ut_tracedat_writer *w, bool store)
{
	if (w)
		w->store = store;
}

void ut_tracedat_yield(struct ut_tracedat_writer *w, struct ut_yield *y)
{
	if (w && w->zp)
		td_zpool_set_yield(w->zp, y);
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
	/*
	 * It says "the trace_clock text follows the CPU table"; the text is its
	 * payload too, NUL-terminated: trace-cmd 3.1 parses the option's payload
	 * even in version 6, and an empty one made it read past its 0-byte
	 * buffer -- heap leftovers with a "[counter]" in them turned its
	 * timestamps raw now and then.
	 */
	buf_num(h, TD_OPT_TRACECLOCK, 2);
	buf_num(h, strlen(w->meta.clock) + 1, 4);
	buf_put(h, w->meta.clock, strlen(w->meta.clock) + 1);
	if (w->meta.uname) {
		buf_num(h, TD_OPT_UNAME, 2);
		buf_num(h, strlen(w->meta.uname) + 1, 4);
		buf_put(h, w->meta.uname, strlen(w->meta.uname) + 1);
	}
	if (w->meta.info) {
		buf_num(h, UT_TRACEDAT_OPT_INFO, 2);
		buf_num(h, strlen(w->meta.info) + 1, 4);
		buf_put(h, w->meta.info, strlen(w->meta.info) + 1);
	}
	if (w->meta.tgids.len) {
		buf_num(h, UT_TRACEDAT_OPT_TGIDS, 2);
		buf_num(h, w->meta.tgids.len + 1, 4);
		buf_put(h, w->meta.tgids.p, w->meta.tgids.len);
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
	off = h->len + 16ULL * (uint64_t)w->nr_cpus + 8 + strlen(w->meta.clock);
	off = (off + TD_PAGE_SIZE - 1) & ~(uint64_t)(TD_PAGE_SIZE - 1);
	for (int i = 0; i < w->nr_cpus; i++) {
		uint64_t size = w->cpus[i].nr_pages * TD_PAGE_SIZE;

		buf_num(h, off, 8);
		buf_num(h, size, 8);
		off += size;
	}
	buf_num(h, strlen(w->meta.clock), 8);
	buf_str(h, w->meta.clock);
	while (h->len % TD_PAGE_SIZE && !h->nomem)
		buf_put(h, "", 1);
}

/* Everything before the first page: meta, options, flyrecord table. */
static int build_header(struct ut_tracedat_writer *w, struct td_buf *h)
{
	meta_file_header(h);
	for (int i = 0; i < TD_NR_META_SECTIONS; i++)
		buf_put(h, w->meta.sec[i].p, w->meta.sec[i].len);
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

/* Version 6: the header, then each CPU's pages. */
static int v6_write(struct ut_tracedat_writer *w, struct td_buf *h)
{
	int ret = build_header(w, h);

	if (!ret)
		ret = write_all(w->fd, h->p, h->len);
	w->meta_written = !ret;
	for (int i = 0; !ret && i < w->nr_cpus; i++)
		if (w->cpus[i].nr_pages)
			ret = copy_pages(w->fd, w->cpus[i].fd, w->cpus[i].nr_pages * TD_PAGE_SIZE);
	return ret;
}

/* --- version 7 ----------------------------------------------------------- */

/* Section descriptions, by index: the strings section holds them back to back. */
static const char *const td_v7_desc[] = {"options", "buffer flyrecord ", "headers",
					 "ftrace events", "event formats", "kallsyms",
					 "printk", "command lines", "strings"};
enum { DESC_OPTIONS, DESC_BUFFER, DESC_META, DESC_STRINGS = 8 };

/* The string id of description @k: its offset in the strings section. */
static uint32_t desc_id(int k)
{
	uint32_t off = 0;

	for (int i = 0; i < k; i++)
		off += (uint32_t)strlen(td_v7_desc[i]) + 1;
	return off;
}

static void sec_hdr(struct td_buf *b, unsigned id, unsigned flags, int desc, uint64_t size)
{
	buf_num(b, id, 2);
	buf_num(b, flags, 2);
	buf_num(b, desc_id(desc), 4);
	buf_num(b, size, 8);
}

/* Magic, "7", endian, long size, page size, the compressor; the options' offset comes last. */
static void v7_file_header(struct td_buf *b)
{
	buf_put(b, td_magic, sizeof(td_magic));
	buf_put(b, "7", 2);
	buf_num(b, 0, 1);
	buf_num(b, 8, 1);
	buf_num(b, TD_PAGE_SIZE, 4);
	buf_put(b, TD_Z_NAME, sizeof(TD_Z_NAME));
	buf_put(b, td_z_version(), strlen(td_z_version()) + 1);
	buf_num(b, 0, 8); /* set by v7_close() */
}

static uint64_t page_up(uint64_t v)
{
	return (v + TD_PAGE_SIZE - 1) & ~(uint64_t)(TD_PAGE_SIZE - 1);
}

/* Move @len bytes at @from down to @to (< @from) in the file, front first. */
static int move_down(struct ut_tracedat_writer *w, uint64_t from, uint64_t to, uint64_t len)
{
	static const size_t piece = 1 << 20;
	unsigned char *buf = malloc(piece);
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	for (uint64_t done = 0; !ret && done < len;) {
		size_t k = len - done < piece ? (size_t)(len - done) : piece;
		ssize_t r = pread(w->fd, buf, k, (off_t)(from + done));

		if (r < 0 && errno == EINTR)
			continue;
		ret = r <= 0 ? (r < 0 ? -errno : -EIO) : pwrite_all(w, buf, (size_t)r, to + done);
		done += r > 0 ? (uint64_t)r : 0;
	}
	free(buf);
	return ret;
}

/* The CPUs with a region, in file order (regions were handed out in increasing offsets). */
static size_t region_order(const struct ut_tracedat_writer *w, int *idx)
{
	size_t n = 0;

	for (int i = 0; i < w->nr_cpus; i++) {
		size_t k = n++;

		if (i == w->direct || !w->cpus[i].roff || !w->cpus[i].nr_chunks) {
			n--;
			continue;
		}
		for (; k && w->cpus[idx[k - 1]].roff > w->cpus[i].roff; k--)
			idx[k] = idx[k - 1];
		idx[k] = i;
	}
	return n;
}

/*
 * The holes between the regions taken out: each region moves down to the
 * TD_REGION_ALIGN boundary after the one before it (the direct CPU's
 * chunks first).  A region that cannot be moved is given up with the ones
 * after it, so the file stays whole.
 */
static int v7_settle(struct ut_tracedat_writer *w)
{
	const struct td_wcpu *d = w->direct >= 0 ? &w->cpus[w->direct] : NULL;
	uint64_t end = w->doff + (d && d->nr_chunks ? 4 + d->zbytes : 0), shift = 0;
	int *idx = malloc(sizeof(int) * (size_t)w->nr_cpus), ret = 0;
	bool collapse = true;
	size_t n;

	if (!idx)
		return -ENOMEM;
	n = region_order(w, idx);
	for (size_t k = 0; k < n; k++) {
		struct td_wcpu *c = &w->cpus[idx[k]];
		uint64_t cur = c->roff - shift, to = align_up(end, TD_REGION_ALIGN);

		if (cur > to && collapse &&
		    fallocate(w->fd, FALLOC_FL_COLLAPSE_RANGE, (off_t)to, (off_t)(cur - to)) == 0) {
			shift += cur - to;
		} else if (cur > to) {
			collapse = false; /* tmpfs, NFS, ...: copied down */
			ret = move_down(w, cur, to, 4 + c->zbytes);
		}
		for (size_t j = k; ret && j < n; j++) {
			w->cpus[idx[j]].roff = w->cpus[idx[j]].nr_chunks = 0;
			w->cpus[idx[j]].zbytes = 0;
		}
		if (ret)
			break;
		c->roff = to;
		end = to + 4 + c->zbytes;
	}
	free(idx);
	return ret;
}

/*
 * Where each CPU's data is (@off, @size: for the BUFFER option): a chunk
 * count and the chunks, on a page boundary as trace-cmd places them, the
 * direct CPU's first (where it was written), the regions where v7_settle()
 * put them, then the CPUs of temp files.  Returns the data's end.
 */
static uint64_t v7_place(const struct ut_tracedat_writer *w, uint64_t *off, uint64_t *size)
{
	uint64_t pos = w->doff;

	for (int i = 0; i < w->nr_cpus; i++)
		off[i] = size[i] = 0;
	if (w->direct >= 0 && w->cpus[w->direct].nr_chunks) {
		off[w->direct] = w->doff;
		size[w->direct] = 4 + w->cpus[w->direct].zbytes;
		pos += size[w->direct];
	}
	for (int i = 0; i < w->nr_cpus; i++) { /* regions, in place since v7_settle() */
		const struct td_wcpu *c = &w->cpus[i];

		if (i == w->direct || !c->nr_chunks || !c->roff)
			continue;
		off[i] = c->roff;
		size[i] = 4 + c->zbytes;
		pos = pos > off[i] + size[i] ? pos : off[i] + size[i];
	}
	for (int i = 0; i < w->nr_cpus; i++) {
		if (i == w->direct || !w->cpus[i].nr_chunks || w->cpus[i].roff)
			continue;
		pos = page_up(pos);
		off[i] = pos;
		size[i] = 4 + w->cpus[i].zbytes;
		pos += size[i];
	}
	return pos;
}

/* The other CPUs' chunk counts, and their chunks from temp files, where v7_place() put them. */
static int v7_copy_others(struct ut_tracedat_writer *w, const uint64_t *off)
{
	for (int i = 0; i < w->nr_cpus; i++) {
		unsigned char count[4];
		int ret;

		if (i == w->direct || !w->cpus[i].nr_chunks)
			continue;
		td_put_le(count, w->cpus[i].nr_chunks, 4);
		ret = pwrite_all(w, count, 4, off[i]);
		if (!ret && w->cpus[i].roff) /* its chunks are there already */
			continue;
		if (!ret && lseek(w->fd, (off_t)(off[i] + 4), SEEK_SET) < 0)
			ret = -errno;
		if (!ret)
			ret = copy_pages(w->fd, w->cpus[i].fd, w->cpus[i].zbytes);
		if (ret) {
			off_t at = lseek(w->fd, 0, SEEK_CUR);

			w->reached = at > 0 ? (uint64_t)at : off[i];
			return ret;
		}
	}
	return 0;
}

/* The six metadata sections at file position @pos, compressed, into @b; @off: where each is. */
static int v7_meta_sections(struct ut_tracedat_writer *w, struct td_buf *b, uint64_t pos,
			    uint64_t off[TD_NR_META_SECTIONS])
{
	for (int i = 0; i < TD_NR_META_SECTIONS; i++) {
		const struct td_buf *sec = &w->meta.sec[i];
		const unsigned char *z;
		size_t n = td_zenc_chunk(w->z, sec->p ? sec->p : (unsigned char *)"", sec->len, &z);

		if (!n)
			return -ENOMEM;
		off[i] = pos + b->len;
		sec_hdr(b, TD_OPT_HEADER_INFO + (unsigned)i, TD_SEC_COMPRESSED, DESC_META + i, n);
		buf_put(b, z, n);
	}
	return b->nomem ? -ENOMEM : 0;
}

static void opt_text(struct td_buf *b, unsigned id, const void *text, size_t n)
{
	buf_num(b, id, 2);
	buf_num(b, n + 1, 4);
	buf_put(b, text, n);
	buf_put(b, "", 1);
}

/* The clock's name, from the bracketed one of the trace_clock line. */
static void clock_name(const char *line, char *out, size_t len)
{
	const char *a = strchr(line, '['), *e = a ? strchr(a, ']') : NULL;

	if (!a || !e)
		snprintf(out, len, "local");
	else
		snprintf(out, len, "%.*s", (int)(e - a - 1), a + 1);
}

/* The BUFFER option: where the data is, its clock, and each CPU's place. */
static void opt_buffer(struct ut_tracedat_writer *w, struct td_buf *b, uint64_t buf_off,
		       const uint64_t *off, const uint64_t *size)
{
	struct td_buf o = {0};
	char clk[64];
	uint32_t n = 0;

	clock_name(w->meta.clock, clk, sizeof(clk));
	buf_num(&o, buf_off, 8);
	buf_put(&o, "", 1); /* the top instance */
	buf_put(&o, clk, strlen(clk) + 1);
	buf_num(&o, TD_PAGE_SIZE, 4);
	for (int i = 0; i < w->nr_cpus; i++)
		n += size[i] != 0;
	buf_num(&o, n, 4);
	for (int i = 0; i < w->nr_cpus; i++) {
		if (!size[i])
			continue;
		buf_num(&o, (uint64_t)i, 4);
		buf_num(&o, off[i], 8);
		buf_num(&o, size[i], 8);
	}
	buf_num(b, TD_OPT_BUFFER, 2);
	buf_num(b, o.len, 4);
	buf_put(b, o.p, o.len);
	b->nomem |= o.nomem;
	buf_free(&o);
}

/* The one options section: as version 6's, plus where the sections and the data are. */
static void v7_options(struct ut_tracedat_writer *w, struct td_buf *b,
		       const uint64_t meta_off[TD_NR_META_SECTIONS], uint64_t buf_off,
		       const uint64_t *off, const uint64_t *size)
{
	struct td_buf o = {0};

	buf_num(&o, TD_OPT_CPUCOUNT, 2);
	buf_num(&o, 4, 4);
	buf_num(&o, (uint64_t)w->nr_cpus, 4);
	opt_text(&o, TD_OPT_TRACECLOCK, w->meta.clock, strlen(w->meta.clock));
	if (w->meta.uname)
		opt_text(&o, TD_OPT_UNAME, w->meta.uname, strlen(w->meta.uname));
	if (w->meta.info)
		opt_text(&o, UT_TRACEDAT_OPT_INFO, w->meta.info, strlen(w->meta.info));
	if (w->meta.tgids.len)
		opt_text(&o, UT_TRACEDAT_OPT_TGIDS, w->meta.tgids.p, w->meta.tgids.len);
	for (int i = 0; i < TD_NR_META_SECTIONS; i++) {
		buf_num(&o, TD_OPT_HEADER_INFO + (unsigned)i, 2);
		buf_num(&o, 8, 4);
		buf_num(&o, meta_off[i], 8);
	}
	opt_buffer(w, &o, buf_off, off, size);
	buf_num(&o, TD_OPT_DONE, 2);
	buf_num(&o, 8, 4);
	buf_num(&o, 0, 8); /* no further options section */
	sec_hdr(b, TD_OPT_DONE, 0, DESC_OPTIONS, o.len);
	buf_put(b, o.p, o.len);
	b->nomem |= o.nomem;
	buf_free(&o);
}

/* The strings section: the section descriptions. */
static void v7_strings(struct td_buf *b)
{
	size_t n = desc_id(DESC_STRINGS) + strlen(td_v7_desc[DESC_STRINGS]) + 1;

	sec_hdr(b, TD_OPT_STRINGS, 0, DESC_STRINGS, n);
	for (int i = 0; i <= DESC_STRINGS; i++)
		buf_put(b, td_v7_desc[i], strlen(td_v7_desc[i]) + 1);
}

/*
 * Version 7 at the start: the file header, whose options offset stays 0
 * (unfinished) until v7_close() sets it, and the buffer section's header;
 * the direct CPU's data follows on the next page boundary.
 */
static int v7_start(struct ut_tracedat_writer *w)
{
	struct td_buf h = {0};
	int ret;

	v7_file_header(&h);
	w->buf_off = h.len;
	sec_hdr(&h, TD_OPT_BUFFER, TD_SEC_COMPRESSED, DESC_BUFFER, 0);
	w->doff = page_up(h.len);
	w->direct = -1;
	ret = h.nomem ? -ENOMEM : write_all(w->fd, h.p, h.len);
	buf_free(&h);
	return ret;
}

/*
 * Everything after the direct CPU's chunks: the other CPUs' data, then the
 * options, the metadata and the strings; then the three numbers that make
 * the file whole (the buffer section's size, the direct CPU's chunk count,
 * the options offset in the file header), last.  *@end: the file's size.
 */
static int v7_tail(struct ut_tracedat_writer *w, const uint64_t *off, const uint64_t *size,
		   uint64_t data_end, uint64_t *end)
{
	uint64_t meta_off[TD_NR_META_SECTIONS] = {0}, opt_off = page_up(data_end);
	struct td_buf o = {0}, m = {0}, fix = {0};
	int ret = v7_meta_sections(w, &m, 0, meta_off);

	v7_strings(&m);
	/* the options' size does not depend on the offsets in them: measure, then place */
	v7_options(w, &o, meta_off, w->buf_off, off, size);
	for (int i = 0; i < TD_NR_META_SECTIONS; i++)
		meta_off[i] += opt_off + o.len;
	o.len = 0;
	v7_options(w, &o, meta_off, w->buf_off, off, size);
	*end = opt_off + o.len + m.len;
	if (!ret && (o.nomem || m.nomem))
		ret = -ENOMEM;
	if (!ret)
		ret = v7_copy_others(w, off);
	if (!ret)
		ret = pwrite_all(w, o.p, o.len, opt_off);
	if (!ret)
		ret = pwrite_all(w, m.p, m.len, opt_off + o.len);
	if (!ret && (w->regular || w->pipe_fd >= 0) && ftruncate(w->fd, (off_t)*end) < 0)
		ret = -errno; /* a chunk cut by a write error may lie past the end */
	sec_hdr(&fix, TD_OPT_BUFFER, TD_SEC_COMPRESSED, DESC_BUFFER, data_end - w->buf_off - TD_SEC_HDR);
	buf_num(&fix, w->direct >= 0 ? w->cpus[w->direct].nr_chunks : 0, 4);
	buf_num(&fix, opt_off, 8);
	if (!ret && fix.nomem)
		ret = -ENOMEM;
	if (!ret)
		ret = pwrite_all(w, fix.p, TD_SEC_HDR, w->buf_off);
	if (!ret && w->direct >= 0 && w->cpus[w->direct].nr_chunks)
		ret = pwrite_all(w, fix.p + TD_SEC_HDR, 4, w->doff);
	if (!ret)
		ret = pwrite_all(w, fix.p + TD_SEC_HDR + 4, 8, w->buf_off - 8);
	buf_free(&o);
	buf_free(&m);
	buf_free(&fix);
	return ret;
}

/*
 * How many of the @nr chunks at @at in @fd (each an 8-byte header with its
 * size, then its data) end within @keep bytes; *@bytes: their size.
 */
static uint64_t chunks_within(int fd, uint64_t at, uint64_t nr, uint64_t keep, uint64_t *bytes)
{
	uint64_t used = 0, n = 0;
	unsigned char h[8];

	while (n < nr && pread(fd, h, sizeof(h), (off_t)(at + used)) == (ssize_t)sizeof(h)) {
		uint64_t len = 8 + (h[0] | (uint64_t)h[1] << 8 | (uint64_t)h[2] << 16 |
				    (uint64_t)h[3] << 24);

		if (used + len > keep)
			break;
		used += len;
		n++;
	}
	*bytes = used;
	return n;
}

/*
 * CPU @cpu's chunks cut to those that end within @keep bytes (the oldest),
 * its first one kept if @keep_one.
 */
static void cpu_cut(struct ut_tracedat_writer *w, int cpu, uint64_t keep, bool keep_one)
{
	struct td_wcpu *c = &w->cpus[cpu];
	uint64_t nr = c->nr_chunks, bytes = 0;
	int fd = c->roff ? w->fd : c->fd;
	uint64_t at = c->roff ? c->roff + 4 : 0;

	if (cpu == w->direct) { /* its chunk ends are known */
		keep = keep_one && keep < w->dends[0] ? w->dends[0] : keep;
		while (nr && w->dends[nr - 1] > keep)
			nr--;
		c->nr_chunks = nr;
		c->zbytes = nr ? w->dends[nr - 1] : 0;
		return;
	}
	nr = chunks_within(fd, at, nr, keep, &bytes);
	if (!nr && keep_one)
		nr = chunks_within(fd, at, 1, UINT64_MAX, &bytes);
	c->nr_chunks = nr;
	c->zbytes = bytes;
	/* a temp file is usually on the same full disk: give that room back too */
	if (!c->roff && ftruncate(c->fd, (off_t)bytes) < 0) {
		/* not given back: the next round finds the tail still short and cuts more */
	}
}

/* Every CPU's newest chunks cut, @need bytes in all, each its share; false: none cut. */
static bool cut_shares(struct ut_tracedat_writer *w, uint64_t need, uint64_t total, bool keep_one)
{
	bool cut = false;

	for (int i = 0; i < w->nr_cpus; i++) {
		struct td_wcpu *c = &w->cpus[i];
		/* its share of @need, rounded up: together at least @need */
		uint64_t give = (uint64_t)(((unsigned __int128)need * c->zbytes + total - 1) / total),
			 had = c->zbytes;

		if (!c->nr_chunks)
			continue;
		cpu_cut(w, i, had > give ? had - give : 0, keep_one);
		cut |= w->cpus[i].zbytes < had;
	}
	return cut;
}

/*
 * The file is @short_by bytes too long for its tail (a full disk, a
 * file-size limit): every CPU gives up the same share of its data, its
 * newest chunks, so that the trace still ends at about the same time on
 * each (cutting one CPU, or dropping the regions whole, left a trace of
 * some threads only), and keeps its first chunk while the others can give
 * (v7_trim() then gives the room back).  False: nothing left to give up.
 */
static bool v7_cut(struct ut_tracedat_writer *w, uint64_t short_by)
{
	uint64_t need = short_by + TD_PAGE_SIZE, total = 0;
	bool temp = false;

	for (int i = 0; i < w->nr_cpus; i++) {
		total += w->cpus[i].nr_chunks ? w->cpus[i].zbytes : 0;
		temp |= w->cpus[i].nr_chunks && !w->cpus[i].roff && (int)i != w->direct;
	}
	if (!total)
		return false;
	/*
	 * A byte cut from a temp file on the same disk counts twice (room
	 * given back, and not copied): half the shortfall a round, measured
	 * again after it, rather than cut twice as much as needed.
	 */
	if (temp)
		need = need / 2 + TD_PAGE_SIZE;
	/* each CPU keeps its first chunk while another can give more */
	if (!cut_shares(w, need, total, true))
		cut_shares(w, need, total, false);
	return true;
}

/*
 * After a cut: the regions moved down over what was cut (a failure drops
 * them: less to write), the file cut after the data in it, which gives the
 * room back.  False if it cannot be cut.
 */
static bool v7_trim(struct ut_tracedat_writer *w)
{
	const struct td_wcpu *d = w->direct >= 0 ? &w->cpus[w->direct] : NULL;
	uint64_t end = w->doff + (d && d->nr_chunks ? 4 + d->zbytes : 0);

	(void)v7_settle(w);
	for (int i = 0; i < w->nr_cpus; i++) {
		const struct td_wcpu *c = &w->cpus[i];

		if (c->roff && c->nr_chunks && c->roff + 4 + c->zbytes > end)
			end = c->roff + 4 + c->zbytes;
	}
	return ftruncate(w->fd, (off_t)end) == 0;
}

/*
 * Version 7 at the end: the data is in place but for the other CPUs' temp
 * files; the tail goes after it.  A tail that does not fit costs the newest
 * chunks, so a record cut short by a full disk is still a whole file with
 * the data that came first.
 */
static int v7_close(struct ut_tracedat_writer *w)
{
	uint64_t *off, *size, end = 0;
	int ret;

	if (!w->cpus) /* (a writer half made: ut_tracedat_create() failed) */
		return -EINVAL;
	off = calloc((size_t)w->nr_cpus * 2, sizeof(uint64_t));
	if (!off)
		return -ENOMEM;
	size = off + w->nr_cpus;
	ret = v7_settle(w);
	if (ret && ret != -EFBIG && ret != -ENOSPC && ret != -EDQUOT && ret != -EIO) {
		free(off);
		return ret;
	}
	for (;;) {
		uint64_t data_end = v7_place(w, off, size);

		w->reached = 0;
		ret = v7_tail(w, off, size, data_end, &end);
		if (ret != -EFBIG && ret != -ENOSPC && ret != -EDQUOT)
			break;
		/* where the write stopped, if known; else a chunk's worth at a time */
		if (!v7_cut(w, w->reached && end > w->reached ? end - w->reached : (uint64_t)TD_WBUF_PAGES * TD_PAGE_SIZE) ||
		    !v7_trim(w))
			break;
	}
	w->meta_written = !ret;
	free(off);
	return ret;
}

/**
 * ut_tracedat_close() - finish the file and free the writer
 * @w: writer (freed whatever the outcome)
 *
 * Flushes the partial pages and writes what is left: version 6's header and
 * each CPU's pages after it, version 7's tail after its data.  On failure
 * the incomplete output file is removed.
 *
 * Return: 0 or a negative errno.
 */
int ut_tracedat_close(struct ut_tracedat_writer *w)
{
	struct td_buf h = { 0 };
	int ret, aret, i;

	if (!w)
		return -EINVAL;
	ret = w->err;
	for (i = 0; !ret && i < w->nr_cpus; i++) {
		ret = page_flush(w, i);
		if (!ret)
			ret = wbuf_flush(w, i);
	}
	if (!ret && w->zp)
		ret = td_zpool_drain(w->zp);
	/*
	 * After a write error (a full disk, a file-size limit) the file is
	 * still made of what was written whole: version 6 puts the metadata
	 * first, so even a file cut short by the same error is readable up to
	 * its last complete page; version 7 gives up its newest chunks to make
	 * room for its tail (v7_close()).
	 */
	if (ret && ret != -ENOMEM && ret != -EINVAL)
		for (i = 0; i < w->nr_cpus; i++)
			w->cpus[i].nr_pages = w->cpus[i].flushed / TD_PAGE_SIZE;
	if (ret != -ENOMEM && ret != -EINVAL) {
		aret = w->z ? v7_close(w) : v6_write(w, &h);
		if (!ret)
			ret = aret;
	}
	if (w->pipe_fd >= 0) {
		if (!ret)
			ret = to_pipe(w);
		close(w->fd); /* the temp file; the pipe is the output's */
	}
	/*
	 * No fsync: waiting for the disk cost seconds on big traces, for
	 * nothing.  A file written whole (create's m->whole) takes its name
	 * now, if it is a trace: complete, or made of what was written whole.
	 */
	aret = ut_outfile_close(&w->out, !ret || w->meta_written);
	if (!ret)
		ret = aret;
	w->fd = -1;
	/* a file of our own only: never a device (/dev/null) nor what a link points at */
	if (ret && !w->meta_written && ut_outfile_in_place(&w->out) && w->regular)
		unlink(w->path);
	buf_free(&h);
	writer_free(w);
	return ret;
}

