// SPDX-License-Identifier: MIT
/*
 * The `snapshot` file of each scope (the top level, processes/PID/,
 * instances/NAME/), as the kernel's:
 *
 *   echo 1 > snapshot   allocates it if needed and takes a snapshot: what
 *                       the scope's buffers hold now goes into it, and the
 *                       buffers are emptied (the kernel swaps the two)
 *   echo 0 > snapshot   clears and frees it
 *   echo N > snapshot   (any other number) clears it, allocated or not
 *   cat snapshot        the snapshot as `trace` shows a trace; empty (or
 *                       freed): the tracer line and the kernel's help text
 *
 * The snapshot is kept by the mount, as the text `trace` gave at that
 * moment (the output options then in force), in the scope.  Exact as a
 * read of `trace` is (every thread's buffer read at once, as they are);
 * not exact: events a thread writes between that read and the emptying
 * are dropped, where the kernel's swap loses none, and after the swap the
 * kernel's main buffer holds the previous snapshot's events, here none.
 *
 * The `snapshot` trigger (events/SYS/EVT/trigger, `snapshot[:N] [if F]`)
 * fires in the traced process, which only counts it in its control block
 * (ut_ctl.snap_requests: it runs in a signal handler); the mount takes the
 * snapshot the next time it reads the scope's `snapshot` or `trace` and
 * sees the count moved.  Exact for what the buffers still hold then; the
 * events written between the hit and that read go into the snapshot too
 * (docs/architecture.md, Snapshot).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/control.h"
#include "common/names.h"
#include "tracefs/tracefs.h"

struct tfs_snap {
	bool allocated;
	char *text;          /* `trace` at the snapshot, header included; NULL: empty */
	size_t len;
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
	if (sc->snap)
		free(sc->snap->text);
	free(sc->snap);
	sc->snap = NULL;
}

/* Whether a trace's text holds an event (a line that is not a # comment). */
static bool has_events(const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (*p != '#' && *p != '\n')
			return true;
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

/* The scope's trace now into the snapshot, then its buffers emptied. */
static int take(struct tfs_req *r, struct tfs_snap *s)
{
	struct tfs_req whole = *r;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ret;

	if (!f)
		return -ENOMEM;
	whole.tid = 0;
	ret = tfs_show_trace(&whole, f);
	if (fclose(f) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(text);
		return ret;
	}
	free(s->text);
	s->text = has_events(text, len) ? text : NULL;
	s->len = s->text ? len : 0;
	if (!s->text)
		free(text);
	return tfs_trunc_trace(&whole);
}

/* The scope's processes' snapshot triggers that fired, summed. */
static uint64_t requests(const struct tfs_scope *sc)
{
	struct ut_live_sess *v = NULL;
	long n = sc->inst ? 0 : ut_live_list(tfs_rundir, &v);
	uint64_t sum = 0;

	for (long i = 0; i < n; i++)
		if (!sc->pid || v[i].pid == sc->pid)
			sum += v[i].snap_requests;
	if (n > 0)
		free(v);
	return sum;
}

static bool taking; /* take() reads trace, which syncs: not again */

void tfs_snapshot_sync(struct tfs_req *r)
{
	struct tfs_scope *sc = r->sc;
	uint64_t now;

	if (taking || sc->inst)
		return;
	now = requests(sc);
	if (sc->snap_looked && now > sc->snap_seen && sc->snap && sc->snap->allocated) {
		taking = true;
		take(r, sc->snap);
		taking = false;
	}
	sc->snap_seen = now;
	sc->snap_looked = true;
}

int tfs_snapshot_alloc(struct tfs_scope *sc)
{
	if (!sc->snap && !(sc->snap = calloc(1, sizeof(*sc->snap))))
		return -ENOMEM;
	sc->snap->allocated = true;
	if (!sc->snap_looked) {
		sc->snap_seen = requests(sc);
		sc->snap_looked = true;
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
	if (v == 0) {
		tfs_snapshot_free(sc);
		return 0;
	}
	if (v != 1) { /* clears, allocated or not */
		if (sc->snap) {
			free(sc->snap->text);
			sc->snap->text = NULL;
			sc->snap->len = 0;
		}
		return 0;
	}
	if (tfs_snapshot_alloc(sc))
		return -ENOMEM;
	taking = true;
	ret = take(r, sc->snap);
	taking = false;
	sc->snap_seen = requests(sc); /* what the triggers asked for is in it too */
	return ret;
}

int tfs_show_snapshot(struct tfs_req *r, FILE *f)
{
	const struct tfs_snap *s;
	struct ut_cfg c;
	uint32_t tracer = 0;

	tfs_snapshot_sync(r);
	s = r->sc->snap;
	if (s && s->text) {
		fwrite(s->text, 1, s->len, f);
		return 0;
	}
	if (!tfs_scope_config(r->sc, &c)) {
		tracer = c.tracer;
		ut_cfg_free(&c);
	}
	fprintf(f, "# tracer: %s\n#\n",
		tracer < (uint32_t)UT_NR_TRACERS ? ut_tracer_names[tracer] : "nop");
	fputs(s ? "#\n# * Snapshot is allocated *\n#\n" : "#\n# * Snapshot is freed *\n#\n", f);
	fputs(help, f);
	return 0;
}
