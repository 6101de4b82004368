// SPDX-License-Identifier: MIT
/* zstd for trace.dat version 7 (reader/tracedat_compress.h). */
#include "reader/tracedat_compress.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "reader/tracedat_format.h"

const char *td_z_version(void)
{
	return ZSTD_versionString();
}

struct td_zenc {
	ZSTD_CCtx *cctx;
	unsigned char *out;
	size_t cap;
};

struct td_zenc *td_zenc_new(int level)
{
	struct td_zenc *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->cctx = ZSTD_createCCtx();
	/* with a checksum a damaged frame is refused, not decoded into other pages */
	if (!z->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_checksumFlag, 1))) {
		td_zenc_free(z);
		return NULL;
	}
	return z;
}

void td_zenc_free(struct td_zenc *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z->out);
	free(z);
}

/* The output buffer made @need bytes long at least.  False when out of memory. */
static bool out_room(struct td_zenc *z, size_t need)
{
	unsigned char *p;

	if (need <= z->cap)
		return true;
	p = realloc(z->out, need);
	if (!p)
		return false;
	z->out = p;
	z->cap = need;
	return true;
}

size_t td_zenc_chunk(struct td_zenc *z, const void *src, size_t n, const unsigned char **out)
{
	size_t got;

	if (n > TD_Z_MAX_PLAIN || !out_room(z, 8 + ZSTD_compressBound(n)))
		return 0;
	got = ZSTD_compress2(z->cctx, z->out + 8, z->cap - 8, src, n);
	if (ZSTD_isError(got) || got > UINT32_MAX)
		return 0;
	td_put_le(z->out, got, 4);
	td_put_le(z->out + 4, n, 4);
	*out = z->out;
	return 8 + got;
}

/*
 * The frame as zstd's format defines it (RFC 8878) with every block stored
 * raw: the magic number, a header saying "one segment, content size in 4
 * bytes, no checksum", then blocks of at most 128 KiB, each behind a 3-byte
 * header (last-block bit, type 0 = raw, size).  Any zstd decoder reads it;
 * making it costs a copy, where compressing costs ~100 ns per
 * function_graph call here (zstd's ~850 MB/s over 80 bytes).
 */
#define ZRAW_BLOCK (128u << 10)

size_t td_zenc_store(struct td_zenc *z, const void *src, size_t n, const unsigned char **out)
{
	size_t nblk = n ? (n + ZRAW_BLOCK - 1) / ZRAW_BLOCK : 1;
	size_t need = 8 + 9 + 3 * nblk + n, at = 8, done = 0;
	static const unsigned char magic_fhd[5] = {0x28, 0xb5, 0x2f, 0xfd, 0xa0};

	if (n > TD_Z_MAX_PLAIN || !out_room(z, need))
		return 0;
	memcpy(z->out + at, magic_fhd, sizeof(magic_fhd));
	td_put_le(z->out + at + 5, n, 4);
	at += 9;
	for (size_t b = 0; b < nblk; b++) {
		size_t len = n - done < ZRAW_BLOCK ? n - done : ZRAW_BLOCK;
		uint32_t hdr = (uint32_t)(len << 3) | (b + 1 == nblk); /* type 0: raw */

		z->out[at] = (unsigned char)hdr;
		z->out[at + 1] = (unsigned char)(hdr >> 8);
		z->out[at + 2] = (unsigned char)(hdr >> 16);
		memcpy(z->out + at + 3, (const unsigned char *)src + done, len);
		at += 3 + len;
		done += len;
	}
	td_put_le(z->out, at - 8, 4);
	td_put_le(z->out + 4, n, 4);
	*out = z->out;
	return at;
}

/* @n bytes at @off; false on a short read. */
static bool pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return false;
		done += (size_t)got;
	}
	return true;
}

/* Decode @zlen bytes of @src into exactly @len bytes of @dst; false (with @why) if not. */
static bool z_decode(void **dctx, unsigned char *dst, uint32_t len, const void *src, size_t zlen,
		     char *why, size_t whylen)
{
	size_t got;

	if (!*dctx)
		*dctx = ZSTD_createDCtx();
	if (!*dctx) {
		snprintf(why, whylen, "out of memory");
		return false;
	}
	got = ZSTD_decompressDCtx(*dctx, dst, len, src, zlen);
	if (ZSTD_isError(got)) {
		snprintf(why, whylen, "zstd: %s", ZSTD_getErrorName(got));
		return false;
	}
	if (got != len) {
		snprintf(why, whylen, "decompressed to %zu bytes, the chunk says %u", got, len);
		return false;
	}
	return true;
}

unsigned char *td_z_section(int fd, uint64_t fsize, uint64_t off, uint64_t len, uint64_t *plain,
			    char *why, size_t whylen)
{
	unsigned char hdr[8], *src = NULL, *dst = NULL;
	void *dctx = NULL;
	uint32_t zlen, n;

	if (len < 8 || off > fsize || fsize - off < len || !pread_all(fd, hdr, 8, off)) {
		snprintf(why, whylen, "compressed section cut short (the file ends at 0x%llx)",
			 (unsigned long long)fsize);
		return NULL;
	}
	zlen = (uint32_t)td_get_le(hdr, 4);
	n = (uint32_t)td_get_le(hdr + 4, 4);
	if (zlen > len - 8 || n > TD_Z_MAX_PLAIN) {
		snprintf(why, whylen, "compressed sizes %u/%u do not fit the section's %llu bytes",
			 zlen, n, (unsigned long long)len);
		return NULL;
	}
	src = malloc(zlen ? zlen : 1);
	dst = malloc((size_t)n + 1);
	if (!src || !dst) {
		snprintf(why, whylen, "out of memory");
	} else if (!pread_all(fd, src, zlen, off + 8)) {
		snprintf(why, whylen, "compressed section cut short");
	} else if (z_decode(&dctx, dst, n, src, zlen, why, whylen)) {
		dst[n] = 0;
		*plain = n;
		free(src);
		ZSTD_freeDCtx(dctx);
		return dst;
	}
	free(src);
	free(dst);
	ZSTD_freeDCtx(dctx);
	return NULL;
}

/* The list ends at a chunk that does not fit: remembered for after the complete ones. */
static void z_cut(struct td_zstream *z, uint64_t at, const char *why)
{
	z->cut = strdup(why);
	z->cut_off = at;
}

/* Chunk @i's sizes at file offset @at, checked against the data's end @end. */
static bool z_index_one(struct td_zstream *z, int fd, uint64_t fsize, uint64_t at, uint64_t end,
			uint32_t page_size)
{
	struct td_zchunk *c = &z->chunk[z->nr];
	unsigned char hdr[8];
	char why[128];

	if (at > end || end - at < 8 || !pread_all(fd, hdr, 8, at)) {
		snprintf(why, sizeof(why), "truncated: chunk header past the end (0x%llx)",
			 (unsigned long long)(end < fsize ? end : fsize));
		z_cut(z, at, why);
		return false;
	}
	c->zoff = at + 8;
	c->zlen = (uint32_t)td_get_le(hdr, 4);
	c->len = (uint32_t)td_get_le(hdr + 4, 4);
	c->start = z->plain;
	if (!c->len || c->len % page_size || c->len > TD_Z_MAX_PLAIN) {
		snprintf(why, sizeof(why), "chunk of %u plain bytes (not whole pages)", c->len);
		z_cut(z, at, why);
		return false;
	}
	if (c->zlen > end - c->zoff) {
		snprintf(why, sizeof(why), "truncated: the chunk's %u bytes run past 0x%llx", c->zlen,
			 (unsigned long long)end);
		z_cut(z, at, why);
		return false;
	}
	z->plain += c->len;
	z->nr++;
	return true;
}

int td_zstream_open(struct td_zstream *z, int fd, uint64_t fsize, uint64_t off, uint64_t len,
		    uint32_t page_size, char *why, size_t whylen)
{
	uint64_t end = fsize, at = off + 4, count;
	unsigned char b[4];

	/*
	 * The chunks are bounded by the file, not by @len: trace-cmd counts
	 * the size without the count word, and reads as many chunks as the
	 * count says, as this does.
	 */
	(void)len;
	memset(z, 0, sizeof(*z));
	z->cached = -1;
	if (off > end || end - off < 4 || !pread_all(fd, b, 4, off)) {
		snprintf(why, whylen, "truncated: no chunk count (the file ends at 0x%llx)",
			 (unsigned long long)fsize);
		z_cut(z, off, why);
		return z->cut ? 0 : -1;
	}
	count = td_get_le(b, 4);
	/* each chunk takes at least its 8 header bytes: a bogus count is cut by the data */
	if (count > (end - at) / 8 + 1)
		count = (end - at) / 8 + 1;
	z->chunk = calloc(count ? count : 1, sizeof(*z->chunk));
	if (!z->chunk) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (!z_index_one(z, fd, fsize, at, end, page_size))
			break;
		at = z->chunk[z->nr - 1].zoff + z->chunk[z->nr - 1].zlen;
	}
	if (!z->cut && z->nr < td_get_le(b, 4))
		z_cut(z, at, "truncated: fewer chunks than the count says");
	return 0;
}

/* The chunk holding plain offset @at (chunks are in order: binary search). */
static int64_t z_find(const struct td_zstream *z, uint64_t at)
{
	uint32_t lo = 0, hi = z->nr;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (at < z->chunk[mid].start)
			hi = mid;
		else if (at >= z->chunk[mid].start + z->chunk[mid].len)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

/* Decode chunk @i into z->buf (kept: a chunk holds many pages). */
static int z_load(struct td_zstream *z, int fd, int64_t i, char *why, size_t whylen)
{
	const struct td_zchunk *c = &z->chunk[i];
	unsigned char *src = malloc(c->zlen ? c->zlen : 1), *dst;
	bool ok;

	dst = realloc(z->buf, c->len);
	if (dst)
		z->buf = dst;
	if (!src || !dst) {
		free(src);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	z->cached = -1;
	ok = pread_all(fd, src, c->zlen, c->zoff) &&
	     z_decode(&z->dctx, z->buf, c->len, src, c->zlen, why, whylen);
	if (!ok && !*why)
		snprintf(why, whylen, "read error");
	free(src);
	if (!ok)
		return -1;
	z->cached = i;
	return 0;
}

int td_zstream_page(struct td_zstream *z, int fd, uint64_t at, unsigned char *page,
		    uint32_t page_size, uint64_t *where, char *why, size_t whylen)
{
	int64_t i = z->cached >= 0 && at >= z->chunk[z->cached].start &&
				    at < z->chunk[z->cached].start + z->chunk[z->cached].len
			    ? z->cached
			    : z_find(z, at);

	*why = 0;
	if (i < 0) {
		*where = z->cut_off;
		snprintf(why, whylen, "no chunk holds plain offset 0x%llx", (unsigned long long)at);
		return -1;
	}
	*where = z->chunk[i].zoff - 8;
	if (i != z->cached && z_load(z, fd, i, why, whylen))
		return -1;
	memcpy(page, z->buf + (at - z->chunk[i].start), page_size);
	return 0;
}

void td_zstream_free(struct td_zstream *z)
{
	free(z->chunk);
	free(z->cut);
	free(z->buf);
	ZSTD_freeDCtx(z->dctx);
	memset(z, 0, sizeof(*z));
}
