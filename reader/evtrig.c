// SPDX-License-Identifier: MIT
/*
 * Readers' side of a session's event triggers (include/utrace/abi.h):
 * the counts its triggers have left ("evtrig") and its hist tables
 * ("hist.<N>"), for the mount's trigger and hist files.  The files belong
 * to another process, maybe gone: mapped through the sessions layer
 * (checked), copied under the sequence count, every value bounded.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "reader/seqcopy.h"
#include "utrace/abi.h"
#include "utrace/read.h"

/* Copy the table once; false if a rewrite was under way or happened meanwhile. */
static bool copy_table(const struct ut_evtrigs *t, struct ut_evtrig_entry *out, uint32_t *nr)
{
	return ut_seq_copy(&t->gen, &t->nr, UT_EVTRIGS_MAX, t->e, sizeof(*out), out, nr);
}

static void terminate(struct ut_evtrig_entry *e)
{
	e->sys[sizeof(e->sys) - 1] = '\0';
	e->evt[sizeof(e->evt) - 1] = '\0';
	e->ident[sizeof(e->ident) - 1] = '\0';
}

long ut_live_evtrigs(const char *sessdir, struct ut_evtrig_entry *out)
{
	char path[PATH_MAX], err[PATH_MAX + 64];
	const struct ut_evtrigs *t;
	uint32_t nr = 0;
	bool ok = false;
	size_t len = 0;
	int ret;

	if (snprintf(path, sizeof(path), "%s/evtrig", sessdir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = ut_sess_map_file(path, false, sizeof(*t), 0, (void **)&t, &len, err, sizeof(err));
	if (ret)
		return ret;
	if (len == sizeof(*t) && __atomic_load_n(&t->magic, __ATOMIC_ACQUIRE) == UT_EVTRIGS_MAGIC &&
	    t->version == UT_ABI_VERSION) {
		for (int tries = 0; !ok && tries < 1000; tries++) {
			ok = copy_table(t, out, &nr);
			if (!ok)
				sched_yield();
		}
	}
	munmap((void *)t, len);
	if (!ok)
		return -EAGAIN;
	for (uint32_t i = 0; i < nr; i++)
		terminate(&out[i]);
	return nr;
}

/* Map hist.<@n> of @sessdir, its header checked; 0 or -errno. */
static int map_hist(const char *sessdir, uint32_t n, bool rw, struct ut_hist_hdr **h, size_t *len)
{
	char path[PATH_MAX], err[PATH_MAX + 64];
	const struct ut_hist_hdr *hh;
	int ret;

	if (snprintf(path, sizeof(path), "%s/hist.%u", sessdir, n) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	ret = ut_sess_map_file(path, rw, sizeof(**h), 0, (void **)h, len, err, sizeof(err));
	if (ret)
		return ret;
	hh = *h;
	if (__atomic_load_n(&hh->magic, __ATOMIC_ACQUIRE) != UT_HIST_MAGIC ||
	    hh->version != UT_ABI_VERSION || !hh->nr_slots || (hh->nr_slots & (hh->nr_slots - 1)) ||
	    (*len - sizeof(*hh)) / sizeof(struct ut_hist_entry) < hh->nr_slots) {
		munmap(*h, *len);
		return -EINVAL;
	}
	return 0;
}

/* Where @h's variables are, if it has them within its @len bytes; NULL if not. */
static const struct ut_hist_vars *vars_area(const struct ut_hist_hdr *h, size_t len)
{
	uint64_t off = h->vars_off;

	if (!off || off < sizeof(*h) || off > len || off % 8 ||
	    (len - off) / sizeof(struct ut_hist_vars) < h->nr_slots)
		return NULL;
	return (const struct ut_hist_vars *)((const char *)h + off);
}

/* Where @h's entries' strings are, if within its @len bytes; NULL if it has none. */
static const char *strs_area(const struct ut_hist_hdr *h, size_t len)
{
	uint64_t off = h->str_off;

	if (!off || off < sizeof(*h) || off > len || !h->str_size || h->str_size > 65536 ||
	    h->str_keys > h->str_size || (len - off) / h->str_size < h->nr_slots)
		return NULL;
	return (const char *)h + off;
}

/* Entry @i's variables copied under their sequence count (a writer mid-way: tried again). */
static void copy_vars(const struct ut_hist_vars *v, struct ut_hist_vars *out)
{
	for (int tries = 0; tries < 100; tries++) {
		uint64_t seq = __atomic_load_n(&v->seq, __ATOMIC_ACQUIRE);

		memcpy(out, v, sizeof(*out));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && __atomic_load_n(&v->seq, __ATOMIC_RELAXED) == seq)
			return;
	}
	out->flags = 0; /* rewritten all along: no track to show */
}

/*
 * Entry @i's strings into @out (@size bytes), the last byte of each
 * string NUL: the writer may still be writing a variable's (a string key's
 * text is written before its entry is published).
 */
static void copy_strs(const char *area, uint32_t i, uint32_t size, char *out)
{
	memcpy(out, area + (size_t)i * size, size);
	out[size - 1] = '\0';
}

long ut_live_hist_all(const char *sessdir, uint32_t n, struct ut_hist_hdr *hdr,
		      struct ut_hist_entry **entries, struct ut_hist_vars **vars, char **strs)
{
	struct ut_hist_hdr *h;
	const struct ut_hist_entry *v;
	const struct ut_hist_vars *hv;
	const char *hs;
	struct ut_hist_entry *out;
	struct ut_hist_vars *vout = NULL;
	char *sout = NULL;
	size_t len, k = 0;
	uint64_t snap;
	int ret = map_hist(sessdir, n, false, &h, &len);

	if (ret)
		return ret;
	memcpy(hdr, h, sizeof(*hdr));
	hdr->sys[sizeof(hdr->sys) - 1] = hdr->evt[sizeof(hdr->evt) - 1] = '\0';
	hdr->ident[sizeof(hdr->ident) - 1] = '\0';
	v = (const struct ut_hist_entry *)(h + 1);
	hv = vars ? vars_area(h, len) : NULL;
	hs = strs ? strs_area(h, len) : NULL;
	if (!hs)
		hdr->str_off = hdr->str_size = hdr->str_keys = 0;
	out = malloc(hdr->nr_slots * sizeof(*out));
	if (hv)
		vout = malloc(hdr->nr_slots * sizeof(*vout));
	if (hs)
		sout = malloc((size_t)hdr->nr_slots * hdr->str_size);
	snap = hdr->snap_slot;
	hdr->snap_slot = 0;
	for (uint32_t i = 0; out && (!hv || vout) && (!hs || sout) && i < hdr->nr_slots; i++) {
		if (__atomic_load_n(&v[i].state, __ATOMIC_ACQUIRE) != 2)
			continue;
		if (snap == (uint64_t)i + 1) /* .snapshot()'s entry: its place in the copy */
			hdr->snap_slot = k + 1;
		if (vout)
			copy_vars(&hv[i], &vout[k]);
		if (sout)
			copy_strs(hs, i, hdr->str_size, sout + k * hdr->str_size);
		out[k] = v[i];
		out[k++].comm[sizeof(out[0].comm) - 1] = '\0';
	}
	munmap(h, len);
	if (!out || (hv && !vout) || (hs && !sout)) {
		free(out);
		free(vout);
		free(sout);
		return -ENOMEM;
	}
	*entries = out;
	if (vars)
		*vars = vout;
	if (strs)
		*strs = sout;
	return (long)k;
}

long ut_live_hist_vars(const char *sessdir, uint32_t n, struct ut_hist_hdr *hdr,
		       struct ut_hist_entry **entries, struct ut_hist_vars **vars)
{
	return ut_live_hist_all(sessdir, n, hdr, entries, vars, NULL);
}

long ut_live_hist(const char *sessdir, uint32_t n, struct ut_hist_hdr *hdr,
		  struct ut_hist_entry **entries)
{
	return ut_live_hist_vars(sessdir, n, hdr, entries, NULL);
}

int ut_live_hist_clear(const char *sessdir, uint32_t n)
{
	struct ut_hist_hdr *h;
	size_t len;
	int ret = map_hist(sessdir, n, true, &h, &len);

	if (ret)
		return ret;
	/* hits meanwhile are dropped uncounted (the kernel pauses while it clears) */
	__atomic_store_n(&h->clearing, 1, __ATOMIC_SEQ_CST);
	memset(h + 1, 0, h->nr_slots * sizeof(struct ut_hist_entry));
	if (vars_area(h, len)) /* and the variables beside the entries */
		memset((char *)h + h->vars_off, 0, h->nr_slots * sizeof(struct ut_hist_vars));
	__atomic_store_n(&h->hits, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->drops, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->entries, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->clearing, 0, __ATOMIC_RELEASE);
	munmap(h, len);
	return 0;
}
