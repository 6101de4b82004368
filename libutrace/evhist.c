// SPDX-License-Identifier: MIT
/*
 * A hist trigger's hit counted in its shared table (hist.<N>,
 * include/utrace/abi.h): the key fields' values after their modifiers
 * find (or claim) an entry by linear probing; its hitcount and the value
 * fields' sums go up atomically.  Lock-free, as the kernel's tracing_map,
 * because it runs in any thread, from the SIGTRAP handler of a probe:
 * an entry being claimed by another thread (or by the code this handler
 * interrupted) is waited for a bounded number of looks, then the hit is
 * dropped rather than risk spinning forever.
 *
 * A string key (common/histstr.h) is a hash of its text in the entry's
 * key, and its text, zero-padded to the kernel's size for it, in the
 * entry's strings: an entry is the key's when both are equal.
 */
#include <string.h>
#include <unistd.h>

#include "common/evtrigger.h"
#include "libutrace/evtrig_tab.h"
#include "libutrace/internal.h"

#define CLAIM_LOOKS 1000

static uint64_t hash_keys(const uint64_t *key)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < UT_HIST_KEYS; i++) {
		h ^= key[i];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 33;
	}
	return h;
}

char *ut_evhist_strs(struct ut_hist_hdr *h, const struct ut_hist_entry *e)
{
	const struct ut_hist_entry *v = (const struct ut_hist_entry *)(h + 1);

	if (!h->str_off || !e)
		return NULL;
	return (char *)h + h->str_off + (size_t)(e - v) * h->str_size;
}

/* Whether entry @e (published) holds @key. */
static bool same_key(struct ut_hist_hdr *h, const struct ut_hist_entry *e, const struct rt_key *key)
{
	const char *s;

	if (memcmp(e->key, key->k, sizeof(e->key)) != 0)
		return false;
	if (!key->slen)
		return true;
	s = ut_evhist_strs(h, e);
	return s && h->str_keys == key->slen && !memcmp(s, key->s, key->slen);
}

/* The thread's name for .execname: its slot's, else the process's. */
static void thread_comm(char comm[16])
{
	const struct ut_ctl *ctl = ut_rt.ctl;

	if (ut_self.has_slot && ut_self.slot < UT_MAX_THREADS)
		memcpy(comm, ctl->threads[ut_self.slot].comm, 16);
	else
		memcpy(comm, ctl->comm, 16);
	comm[15] = '\0';
}

/* Entry @e is free: claim it for @key, if the table has room.  False if not taken. */
static bool claim(struct ut_hist_hdr *h, struct ut_hist_entry *e, const struct rt_key *key)
{
	char *s;

	uint32_t free_state = 0;

	if (__atomic_add_fetch(&h->entries, 1, __ATOMIC_RELAXED) > h->max_entries) {
		__atomic_sub_fetch(&h->entries, 1, __ATOMIC_RELAXED);
		return false;
	}
	if (!__atomic_compare_exchange_n(&e->state, &free_state, 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED)) {
		__atomic_sub_fetch(&h->entries, 1, __ATOMIC_RELAXED);
		return false;
	}
	memcpy(e->key, key->k, sizeof(e->key));
	s = ut_evhist_strs(h, e);
	if (s) /* the variables' and saved strings after the keys' start empty */
		memset(s, 0, h->str_size);
	if (s && key->slen && key->slen <= h->str_size)
		memcpy(s, key->s, key->slen);
	thread_comm(e->comm);
	__atomic_store_n(&e->state, 2, __ATOMIC_RELEASE);
	return true;
}

/* The entry of @key: found, or claimed; NULL if the table is full (or busy too long). */
static struct ut_hist_entry *entry_of(struct ut_hist_hdr *h, const struct rt_key *key)
{
	struct ut_hist_entry *v = (struct ut_hist_entry *)(h + 1);
	uint32_t mask = h->nr_slots - 1, i = (uint32_t)hash_keys(key->k) & mask;

	for (uint32_t looks = 0; looks < h->nr_slots + CLAIM_LOOKS; looks++) {
		struct ut_hist_entry *e = &v[i];
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);

		if (st == 2 && same_key(h, e, key))
			return e;
		if (st == 1)
			continue; /* being claimed: look again */
		if (st == 0) {
			if (claim(h, e, key))
				return e;
			if (__atomic_load_n(&e->state, __ATOMIC_ACQUIRE) == 0)
				return NULL; /* no room left */
			continue; /* another thread took it: see whose */
		}
		i = (i + 1) & mask;
	}
	return NULL;
}

/*
 * The key of hit @h for trigger @rt: its key fields' values after their
 * modifiers; a string's text (up to the kernel's size for it, less its
 * NUL) into the key's strings, and its hash as its value.
 */
void ut_evhist_key(const struct rt_trig *rt, const struct rt_hit *h, struct rt_key *key)
{
	const struct ut_evtrig *t = &rt->t;
	const struct ut_hist_strs *l = &rt->strs;

	key->slen = l->keys <= sizeof(key->s) ? l->keys : 0;
	for (unsigned i = 0; i < UT_HIST_KEYS; i++) {
		uint64_t v = i < t->nkeys ? ut_histvar_field(h, rt->slot[i]) : 0;

		if (i < t->nkeys && l->key_size[i] && key->slen)
			key->k[i] = ut_hist_str_key(key->s + l->key_off[i], l->key_size[i], v);
		else
			key->k[i] = i < t->nkeys ? ut_hist_key_value(&t->keys[i], v) : 0;
	}
}

/* The entry of @key if it is there (a variable read by another event's trigger); NULL if not. */
struct ut_hist_entry *ut_evhist_find(struct ut_hist_hdr *h, const struct rt_key *key)
{
	struct ut_hist_entry *v = (struct ut_hist_entry *)(h + 1);
	uint32_t mask = h->nr_slots - 1, i = (uint32_t)hash_keys(key->k) & mask;

	for (uint32_t looks = 0; looks < h->nr_slots; looks++, i = (i + 1) & mask) {
		uint32_t st = __atomic_load_n(&v[i].state, __ATOMIC_ACQUIRE);

		if (st == 0)
			return NULL;
		if (st == 2 && same_key(h, &v[i], key))
			return &v[i];
	}
	return NULL;
}

/*
 * Count a hit under @key with value fields @vals (t->nvals of them): its
 * entry, or NULL if not counted (paused, being cleared, table full).
 */
struct ut_hist_entry *ut_evhist_count(struct ut_hist_hdr *h, const struct ut_evtrig *t,
				      const struct rt_key *key, const uint64_t *vals)
{
	struct ut_hist_entry *e;

	if (__atomic_load_n(&h->paused, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&h->clearing, __ATOMIC_ACQUIRE))
		return NULL;
	__atomic_add_fetch(&h->hits, 1, __ATOMIC_RELAXED);
	e = entry_of(h, key);
	if (!e) {
		__atomic_add_fetch(&h->drops, 1, __ATOMIC_RELAXED);
		return NULL;
	}
	__atomic_add_fetch(&e->hits, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < t->nvals && i < UT_HIST_VALS; i++)
		__atomic_add_fetch(&e->val[i], vals[i], __ATOMIC_RELAXED);
	return e;
}
