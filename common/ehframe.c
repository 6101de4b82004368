// SPDX-License-Identifier: MIT
/* Function starts from .eh_frame_hdr and .eh_frame (common/ehframe.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/ehframe.h"

/* DWARF pointer encodings (DW_EH_PE_*) that GNU ld and gcc emit. */
enum {
	PE_ABSPTR = 0x00, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03, PE_UDATA8 = 0x04,
	PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b, PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10, PE_DATAREL = 0x30, PE_OMIT = 0xff,
};

struct rd {
	ut_eh_read_fn read;
	void *ctx;
};

static bool get(const struct rd *r, uint64_t addr, void *out, size_t len)
{
	const uint8_t *p = r->read(r->ctx, addr, len);

	if (p)
		memcpy(out, p, len);
	return p != NULL;
}

/* The size of a value of encoding @enc (not LEB128): 0 if unknown. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		return 8;
	case PE_UDATA4:
	case PE_SDATA4:
		return 4;
	case PE_UDATA2:
	case PE_SDATA2:
		return 2;
	default:
		return 0;
	}
}

/* A value of encoding @enc at @addr, its pc-relative base applied if @rel. */
static bool get_enc(const struct rd *r, uint64_t addr, uint8_t enc, bool rel, uint64_t *v)
{
	size_t n = enc_size(enc);
	uint8_t b[8];
	uint64_t x = 0;

	if (!n || !get(r, addr, b, n))
		return false;
	for (size_t i = 0; i < n; i++)
		x |= (uint64_t)b[i] << (8 * i);
	if ((enc & 0x08) && n < 8 && (x >> (8 * n - 1)) & 1) /* signed: extend */
		x |= ~(uint64_t)0 << (8 * n);
	if (rel && (enc & 0x70) == PE_PCREL)
		x += addr;
	else if (rel && (enc & 0x70) != 0)
		return false;
	*v = x;
	return true;
}

/* An unsigned LEB128 at *@addr (advanced past it). */
static bool get_uleb(const struct rd *r, uint64_t *addr, uint64_t *v)
{
	uint8_t b;

	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (!get(r, (*addr)++, &b, 1))
			return false;
		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/* The FDE pointer encoding ('R') of the CIE at @cie; PE_ABSPTR if it has none. */
static bool cie_encoding(const struct rd *r, uint64_t cie, uint8_t *enc)
{
	uint32_t len, id;
	uint8_t ver, c;
	char aug[8];
	uint64_t a = cie + 9, skip;
	size_t n = 0;

	if (!get(r, cie, &len, 4) || !get(r, cie + 4, &id, 4) || !get(r, cie + 8, &ver, 1) ||
	    len == 0 || len == 0xffffffff || id != 0 || (ver != 1 && ver != 3))
		return false;
	do { /* the augmentation string */
		if (!get(r, a++, &c, 1) || n == sizeof(aug))
			return false;
		aug[n++] = (char)c;
	} while (c);
	*enc = PE_ABSPTR;
	if (aug[0] != 'z')
		return aug[0] == '\0';
	/* code alignment, data alignment, return register (LEB128s; a byte in version 1) */
	if (!get_uleb(r, &a, &skip) || !get_uleb(r, &a, &skip) ||
	    !(ver == 1 ? (a++, true) : get_uleb(r, &a, &skip)) || !get_uleb(r, &a, &skip))
		return false;
	for (const char *p = aug + 1; *p; p++) {
		uint8_t e;

		if (*p == 'S' || *p == 'B')
			continue;
		if (!get(r, a++, &e, 1))
			return false;
		if (*p == 'R') {
			*enc = e;
		} else if (*p == 'P') { /* the personality routine's pointer */
			if (!enc_size(e))
				return false;
			a += enc_size(e);
		} else if (*p != 'L') {
			return false;
		}
	}
	return true;
}

/* The code range of the FDE at @fde: [lo, hi). */
static bool fde_range(const struct rd *r, uint64_t fde, struct ut_eh_range *out)
{
	uint32_t len, cieptr;
	uint64_t lo, range;
	uint8_t enc;

	if (!get(r, fde, &len, 4) || !get(r, fde + 4, &cieptr, 4) || len < 8 ||
	    len == 0xffffffff || !cieptr || cieptr > fde + 4 ||
	    !cie_encoding(r, fde + 4 - cieptr, &enc) || enc == PE_OMIT ||
	    !get_enc(r, fde + 8, enc, true, &lo) ||
	    !get_enc(r, fde + 8 + enc_size(enc), enc & 0x0f, false, &range) || lo + range < lo)
		return false;
	out->lo = lo;
	out->hi = lo + range;
	return true;
}

long ut_eh_ranges(uint64_t hdr, ut_eh_read_fn read, void *ctx, struct ut_eh_range **out)
{
	struct rd r = {read, ctx};
	uint8_t h[4];
	uint64_t n, prev = 0;
	struct ut_eh_range *v;

	*out = NULL;
	if (!hdr || !get(&r, hdr, h, 4) || h[0] != 1)
		return -ENOENT;
	/* GNU ld's: eh_frame_ptr pc-relative sdata4, a udata4 count, a datarel sdata4 table */
	if (h[1] != (PE_PCREL | PE_SDATA4) || h[2] != PE_UDATA4 || h[3] != (PE_DATAREL | PE_SDATA4))
		return -ENOTSUP;
	if (!get_enc(&r, hdr + 8, PE_UDATA4, false, &n) || !n || n > (1u << 24))
		return -ENOENT;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t a = hdr + 12 + 8 * i, loc, fde;

		if (!get_enc(&r, a, PE_SDATA4, false, &loc) ||
		    !get_enc(&r, a + 4, PE_SDATA4, false, &fde) ||
		    !fde_range(&r, hdr + fde, &v[i]) || v[i].lo != hdr + loc || v[i].lo < prev) {
			free(v);
			return -ENOENT;
		}
		prev = v[i].lo;
	}
	*out = v;
	return (long)n;
}
