// SPDX-License-Identifier: MIT
/*
 * A synthetic event's record payload (common/synthrec.h).  A string's
 * __data_loc is relative to the record's payload as the kernel's format
 * counts it: after the 8 bytes of common fields.
 */
#include "common/evfilter.h"
#include "common/synthrec.h"

/*
 * String field @i's text at address @a (0: none, recorded empty) after
 * the @n slots of @rec, @used bytes of strings there already: its
 * __data_loc; the bytes added to *@used (a char[N]: N - 1 at most).
 */
static uint64_t put_string(const struct ut_synth_def *d, unsigned i, uint64_t *rec, unsigned n,
			   unsigned *used, uint64_t a)
{
	const char *src = (const char *)(uintptr_t)a;
	char *dst = (char *)(rec + n) + *used;
	unsigned max = d->strsize[i] ? d->strsize[i] : UT_EV_MAX_STR, len = 0;

	while (src && len + 1 < max && src[len]) {
		dst[len] = src[len];
		len++;
	}
	dst[len++] = '\0';
	*used += len;
	return (uint64_t)len << 16 | (8 + 8 * n + *used - len);
}

unsigned ut_synth_lay_out(const struct ut_synth_def *d, const uint64_t *args, uint64_t *rec)
{
	unsigned n = d->nfields, used = 0;

	for (unsigned i = 0; i < n; i++) { /* the field's size of it, as a probe's argument */
		unsigned sz = d->size[i];

		if (d->is_string[i])
			rec[i] = put_string(d, i, rec, n, &used, args[i]);
		else if (sz < 8 && d->is_signed[i])
			/* sign-extended: shifted up unsigned (a negative left shift is undefined) */
			rec[i] = (uint64_t)((int64_t)(args[i] << (64 - 8 * sz)) >> (64 - 8 * sz));
		else
			rec[i] = sz < 8 ? args[i] & ((1ULL << (8 * sz)) - 1) : args[i];
	}
	return used;
}

bool ut_synth_passes(const struct ut_evf *f, uint64_t *rec, unsigned nfields, unsigned sb,
		     int32_t tid, const char *comm, uint32_t cpu)
{
	struct ut_evf_ctx ctx = {.cpu = cpu, .comm = comm};

	rec[0] = (uint64_t)(uint32_t)tid << 32; /* common_pid at 4, the other common fields 0 */
	return ut_evf_match(f, rec, 8 + 8 * (size_t)nfields + sb, &ctx);
}
