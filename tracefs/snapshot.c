// SPDX-License-Identifier: MIT
/*
 * The `snapshot` file of each scope (the top level, processes/PID/,
 * instances/NAME/), as the kernel's, whose snapshot is a second buffer
 * swapped with the live one:
 *
 *   echo 1 > snapshot   allocates it if needed and swaps: the snapshot holds
 *                       what the live buffer held, and the live buffer what
 *                       the snapshot held (nothing after an allocation or a
 *                       clear), new events going after it
 *   echo 0 > snapshot   clears and frees it
 *   echo N > snapshot   (any other number) clears it, allocated or not
 *   cat snapshot        the snapshot as `trace` shows a trace; empty (or
 *                       freed): the tracer line and the kernel's help text
 *
 * The buffers here are the threads' rings in shared memory, written by the
 * processes: nothing can swap them.  So the mount keeps, per scope, the
 * snapshot as the text `trace` gave for it (the output options then in
 * force), the events a swap put back into the live buffer (`carry`: shown
 * by `trace` before the rings' events, counted in its header) and a cut:
 * `trace` shows the rings' events after it only.  A swap at time T makes
 * the snapshot of the carry and the rings' events in (cut, T], the old
 * snapshot's events the new carry, and T the cut.  `echo 1` swaps at the
 * last event the rings hold when it reads them; events written meanwhile
 * stay in the live trace, as they would in the kernel's new buffer.
 *
 * A `snapshot` trigger or hist's `.snapshot()` fires in the traced
 * process, which stores the time of the hit and counts it in its control
 * block (ut_ctl.snap_ts, snap_requests: it runs in a signal handler).  The
 * next time the mount reads the scope's `snapshot`, `trace` or an event's
 * `hist`, it makes each swap at its hit's time, in time order: the
 * snapshot holds what the trace held at the hit, no later event, and the
 * live trace continues with the events after it.  Exact for what the
 * rings still hold then (a ring in overwrite mode may have overwritten its
 * oldest events meanwhile; the kernel's swap would have kept them); the
 * times of the last UT_SNAP_TS hits of a process are kept (older ones in
 * a burst are not swapped at).  The events a swap took stay in the rings,
 * hidden from `trace` (trace_pipe and per_thread/TID/trace still read them;
 * `echo > trace` empties all).  Instances: `echo 1` swaps; their events
 * have no triggers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/control.h"
#include "common/names.h"
#include "common/ring_buffer.h"
#include "tracefs/tracefs.h"
#include "utrace/abi.h"
#include "utrace/read.h"

struct seen {
	char name[64]; /* a session */
	uint64_t n;    /* its requests taken */
};

struct tfs_snap {
	bool allocated;
	bool looked;         /* seen[] holds every session's count at allocation */
	char *text;          /* the snapshot: header and events; NULL: empty */
	size_t len;
	char *carry;         /* event lines a swap put back into the live buffer */
	size_t carry_len, carry_n;
	uint64_t cut;        /* `trace` shows the rings' events after this time */
	struct seen *seen;
	size_t nseen;
};

static const char help[] =
	"# Snapshot commands:\n"
	"# echo 0 > snapshot : Clears and frees snapshot buffer\n"
	"# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.\n"
	"#                      Takes a snapshot of the main buffer.\n"
	"# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)\n"
	"#                      (Doesn't have to be '2' works with any number that\n"
	"#                       is not a '0' or '1')\n";

void tfs_snapshot_free(struct tfs_scope *sc)
{
	if (sc->snap) {
		free(sc->snap->text);
		free(sc->snap->carry);
		free(sc->snap->seen);
	}
	free(sc->snap);
	sc->snap = NULL;
}

/* The scope's trace in [@min, @max] (0: open), with its header, into *@text. */
static int render(struct tfs_req *r, uint64_t min, uint64_t max, char **text, size_t *len,
		  uint64_t *last)
{
	struct ut_live_window win = {.ts_min = min, .ts_max = max};
	struct tfs_req whole = *r;
	FILE *f;
	int ret;

	*text = NULL;
	f = open_memstream(text, len);
	if (!f)
		return -ENOMEM;
	whole.tid = 0;
	ret = tfs_print_trace(&whole, f, &win);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	*last = win.last_ts;
	return ret;
}

/* The header line "# entries-in-buffer/entries-written: A/B ..." with @n more in both. */
static void put_header_line(FILE *f, const char *line, size_t n, size_t add)
{
	static const char tag[] = "# entries-in-buffer/entries-written: ";
	unsigned long long a, b;
	int used = 0;

	if (add && n > sizeof(tag) && !strncmp(line, tag, sizeof(tag) - 1) &&
	    sscanf(line + sizeof(tag) - 1, "%llu/%llu%n", &a, &b, &used) == 2) {
		fprintf(f, "%s%llu/%llu", tag, a + add, b + add);
		fwrite(line + sizeof(tag) - 1 + used, 1, n - (sizeof(tag) - 1) - (size_t)used, f);
		return;
	}
	fwrite(line, 1, n, f);
}

/* @text (a trace: # header, events) to @f with @carry's @carry_n event lines after its header. */
static void splice(FILE *f, const char *text, size_t len, const char *carry, size_t carry_len,
		   size_t carry_n)
{
	const char *p = text, *end = text + len;

	while (p < end && *p == '#') { /* the header */
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);

		put_header_line(f, p, n, carry_n);
		p += n;
	}
	if (carry_len) /* (none: NULL, which fwrite may not be given) */
		fwrite(carry, 1, carry_len, f);
	if (end > p)
		fwrite(p, 1, (size_t)(end - p), f);
}

/* The event lines of trace text @text (not # lines) into a new *@out; how many. */
static size_t event_lines(const char *text, size_t len, char **out, size_t *outlen)
{
	const char *p = text, *end = text + len;
	FILE *f = open_memstream(out, outlen);
	size_t n = 0;

	if (!f)
		return 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t k = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);

		if (*p != '#' && *p != '\n') {
			fwrite(p, 1, k, f);
			n++;
		}
		p += k;
	}
	fclose(f);
	return n;
}

/*
 * Swap the scope's buffers at time @t (0: now, i.e. after the last event the
 * rings hold): the carry and the rings' events in (cut, t] become the
 * snapshot, the old snapshot's events the carry.
 */
static int swap(struct tfs_req *r, struct tfs_snap *s, uint64_t t)
{
	char *win = NULL, *snap = NULL, *carry = NULL;
	size_t wlen = 0, slen = 0, clen = 0, cn = 0;
	uint64_t last;
	FILE *f;
	int ret = render(r, s->cut ? s->cut + 1 : 0, t, &win, &wlen, &last);

	if (ret) {
		free(win);
		return ret;
	}
	f = open_memstream(&snap, &slen);
	if (!f) {
		free(win);
		return -ENOMEM;
	}
	splice(f, win, wlen, s->carry, s->carry_len, s->carry_n);
	fclose(f);
	free(win);
	if (s->text)
		cn = event_lines(s->text, s->len, &carry, &clen);
	free(s->text);
	free(s->carry);
	s->carry = carry;
	s->carry_len = carry ? clen : 0;
	s->carry_n = cn;
	if (event_lines(snap, slen, &win, &wlen) == 0) { /* nothing in it: empty */
		free(snap);
		snap = NULL;
		slen = 0;
	}
	free(win);
	s->text = snap;
	s->len = slen;
	if (t > s->cut || last > s->cut)
		s->cut = t ? t : last;
	return 0;
}

/* The session's requests taken so far (NULL: none noted; a new one is added if @add). */
static struct seen *find_seen(struct tfs_snap *s, const char *name, bool add)
{
	struct seen *v;

	for (size_t i = 0; i < s->nseen; i++)
		if (!strcmp(s->seen[i].name, name))
			return &s->seen[i];
	if (!add || !(v = realloc(s->seen, (s->nseen + 1) * sizeof(*v))))
		return NULL;
	s->seen = v;
	v = &s->seen[s->nseen++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->n = 0;
	return v;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One session's new requests: their times (the trace clock's) added to @t; all noted seen. */
static void session_requests(struct tfs_snap *s, const struct ut_live_sess *v, uint64_t **t,
			     size_t *nt)
{
	struct ut_ctl *ctl = ut_live_map_ctl(v->dir);
	struct seen *sn;
	struct ut_clockconv conv;
	uint64_t now, from;

	if (!ctl)
		return;
	now = __atomic_load_n(&ctl->snap_requests, __ATOMIC_ACQUIRE);
	sn = find_seen(s, v->name, true);
	if (sn && !s->looked)
		sn->n = now; /* at allocation: what came before is not this snapshot's */
	from = sn && now - sn->n < UT_SNAP_TS ? sn->n : now - (now < UT_SNAP_TS ? now : UT_SNAP_TS);
	conv = (struct ut_clockconv){.clock = ctl->clock, .tsc0 = ctl->tsc0, .mono0 = ctl->mono0,
				     .mult = ctl->tsc_mult, .shift = ctl->tsc_shift};
	for (uint64_t k = sn ? from : now; k < now; k++) {
		uint64_t *nv = realloc(*t, (*nt + 1) * sizeof(**t));
		uint64_t raw = __atomic_load_n(&ctl->snap_ts[k % UT_SNAP_TS], __ATOMIC_RELAXED);

		if (!nv)
			break;
		*t = nv;
		nv[(*nt)++] = ut_clock_to_trace(&conv, raw);
	}
	if (sn)
		sn->n = now;
	ut_live_unmap_ctl(ctl);
}

static bool taking; /* a swap reads trace, which syncs: not again */

void tfs_snapshot_sync(struct tfs_req *r)
{
	struct tfs_scope *sc = r->sc;
	struct tfs_snap *s = sc->snap;
	struct ut_live_sess *v = NULL;
	uint64_t *t = NULL;
	size_t nt = 0;
	long n;

	if (taking || sc->inst || !s || !s->allocated)
		return;
	n = ut_live_list(tfs_rundir, &v);
	for (long i = 0; i < n; i++)
		if (!sc->pid || v[i].pid == sc->pid)
			session_requests(s, &v[i], &t, &nt);
	if (n > 0)
		free(v);
	s->looked = true;
	if (!nt)
		return;
	qsort(t, nt, sizeof(*t), cmp_u64);
	taking = true;
	for (size_t i = 0; i < nt; i++)
		swap(r, s, t[i] ? t[i] : 1);
	taking = false;
	free(t);
}

int tfs_snapshot_alloc(struct tfs_scope *sc)
{
	if (!sc->snap && !(sc->snap = calloc(1, sizeof(*sc->snap))))
		return -ENOMEM;
	if (!sc->snap->allocated) {
		struct tfs_req r = {.sc = sc};

		sc->snap->allocated = true;
		sc->snap->looked = false;
		tfs_snapshot_sync(&r); /* notes the counts: earlier hits are not this buffer's */
	}
	return 0;
}

int tfs_store_snapshot(struct tfs_req *r, const char *buf, size_t len, bool append)
{
	struct tfs_scope *sc = r->sc;
	unsigned long long v;
	int ret;

	(void)append;
	if (tfs_parse_ulong(buf, len, ~0ull, &v))
		return -EINVAL;
	if (v != 1) { /* 0 frees, any other clears, allocated or not */
		if (sc->snap) {
			free(sc->snap->text);
			sc->snap->text = NULL;
			sc->snap->len = 0;
			sc->snap->allocated = sc->snap->allocated && v != 0;
		}
		return 0;
	}
	if (tfs_snapshot_alloc(sc))
		return -ENOMEM;
	tfs_snapshot_sync(r); /* the hits before this swap first */
	taking = true;
	ret = swap(r, sc->snap, 0);
	taking = false;
	return ret;
}

int tfs_snapshot_show_trace(struct tfs_req *r, FILE *f)
{
	struct tfs_snap *s;
	char *text = NULL;
	size_t len = 0;
	uint64_t last;
	int ret;

	tfs_snapshot_sync(r);
	s = r->sc->snap;
	if (r->tid || !s || (!s->cut && !s->carry_n))
		return tfs_print_trace(r, f, NULL);
	ret = render(r, s->cut + 1, 0, &text, &len, &last);
	if (!ret)
		splice(f, text, len, s->carry, s->carry_len, s->carry_n);
	free(text);
	return ret;
}

void tfs_snapshot_trunc_trace(struct tfs_scope *sc)
{
	if (!sc->snap)
		return;
	free(sc->snap->carry);
	sc->snap->carry = NULL;
	sc->snap->carry_len = sc->snap->carry_n = 0;
}

int tfs_show_snapshot(struct tfs_req *r, FILE *f)
{
	const struct tfs_snap *s;
	struct ut_cfg c;
	uint32_t tracer = 0;

	tfs_snapshot_sync(r);
	s = r->sc->snap;
	if (s && s->allocated && s->text) {
		fwrite(s->text, 1, s->len, f);
		return 0;
	}
	if (!tfs_scope_config(r->sc, &c)) {
		tracer = c.tracer;
		ut_cfg_free(&c);
	}
	fprintf(f, "# tracer: %s\n#\n",
		tracer < (uint32_t)UT_NR_TRACERS ? ut_tracer_names[tracer] : "nop");
	fputs(s && s->allocated ? "#\n# * Snapshot is allocated *\n#\n"
				: "#\n# * Snapshot is freed *\n#\n",
	      f);
	fputs(help, f);
	return 0;
}
