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
 */
#include <string.h>
#include <unistd.h>

#include "common/evtrigger.h"
#include "libutrace/internal.h"

#define CLAIM_LOOKS 1000

/* The value of field @name: an argument, or common_pid (the thread, as the kernel's). */
static uint64_t field_value(const char *name, const uint64_t *args, unsigned nargs)
{
	unsigned n = 0;

	if (name[0] == 'c') { /* common_pid: ut_evtrig_check() let no other through */
		if (!ut_self.tid)
			ut_self.tid = (int32_t)gettid();
		return (uint64_t)ut_self.tid;
	}
	for (const char *d = name + 3; *d >= '0' && *d <= '9'; d++)
		n = n * 10 + (unsigned)(*d - '0');
	return n >= 1 && n <= nargs ? args[n - 1] : 0;
}

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
static bool claim(struct ut_hist_hdr *h, struct ut_hist_entry *e, const uint64_t *key)
{
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
	memcpy(e->key, key, sizeof(e->key));
	thread_comm(e->comm);
	__atomic_store_n(&e->state, 2, __ATOMIC_RELEASE);
	return true;
}

/* The entry of @key: found, or claimed; NULL if the table is full (or busy too long). */
static struct ut_hist_entry *entry_of(struct ut_hist_hdr *h, const uint64_t *key)
{
	struct ut_hist_entry *v = (struct ut_hist_entry *)(h + 1);
	uint32_t mask = h->nr_slots - 1, i = (uint32_t)hash_keys(key) & mask;

	for (uint32_t looks = 0; looks < h->nr_slots + CLAIM_LOOKS; looks++) {
		struct ut_hist_entry *e = &v[i];
		uint32_t st = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);

		if (st == 2 && !memcmp(e->key, key, sizeof(e->key)))
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

void ut_evhist_add(struct ut_hist_hdr *h, const struct ut_evtrig *t, const uint64_t *args,
		   unsigned nargs)
{
	uint64_t key[UT_HIST_KEYS] = {0};
	struct ut_hist_entry *e;

	if (__atomic_load_n(&h->paused, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&h->clearing, __ATOMIC_ACQUIRE))
		return;
	__atomic_add_fetch(&h->hits, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < t->nkeys && i < UT_HIST_KEYS; i++)
		key[i] = ut_hist_key_value(&t->keys[i], field_value(t->keys[i].name, args, nargs));
	e = entry_of(h, key);
	if (!e) {
		__atomic_add_fetch(&h->drops, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&e->hits, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < t->nvals && i < UT_HIST_VALS; i++)
		__atomic_add_fetch(&e->val[i], field_value(t->vals[i].name, args, nargs),
				   __ATOMIC_RELAXED);
}
