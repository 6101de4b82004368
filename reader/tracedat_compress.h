/* SPDX-License-Identifier: MIT */
/*
 * zstd for trace.dat version 7 (reader/tracedat_compress.c): the one file
 * that knows the compressor.  A compressed section is a u32 compressed size,
 * a u32 plain size and one zstd frame; a CPU's data is a u32 chunk count,
 * then per chunk the same two sizes and a frame of whole pages
 * (docs/file-format.md, section 7).  Everything read is untrusted: sizes
 * are checked against the file and against what a frame decodes to.
 */
#ifndef UT_READER_TRACEDAT_COMPRESS_H
#define UT_READER_TRACEDAT_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The algorithm named in the file header, and its version ("1.5.4"). */
#define TD_Z_NAME "zstd"
const char *td_z_version(void);

/* Largest plain size one chunk or section may claim (a bogus size fails early). */
#define TD_Z_MAX_PLAIN (64u << 20)

/* --- writing --- */

struct td_zenc;
struct td_zenc *td_zenc_new(int level);
void td_zenc_free(struct td_zenc *z);
/*
 * @n plain bytes as a chunk: the two u32 sizes then the frame, into a buffer
 * owned by @z (valid until the next call).  Returns its length, or 0 on failure.
 */
size_t td_zenc_chunk(struct td_zenc *z, const void *src, size_t n, const unsigned char **out);
/*
 * The same chunk stored, not compressed: a zstd frame of raw blocks, which
 * every zstd decoder reads (the writer's way to keep up when compressing
 * cannot: ut_tracedat_store()).
 */
size_t td_zenc_store(struct td_zenc *z, const void *src, size_t n, const unsigned char **out);

/* --- reading --- */

/*
 * One compressed section (@len bytes at file offset @off of @fd, @fsize the
 * file's size): its plain bytes, malloc'ed, with a NUL after them.  NULL with
 * @why set when it is cut short, lies about its sizes or does not decode.
 */
unsigned char *td_z_section(int fd, uint64_t fsize, uint64_t off, uint64_t len, uint64_t *plain,
			    char *why, size_t whylen);

/* A CPU's chunked data, read a page at a time. */
struct td_zchunk {
	uint64_t zoff;  /* file offset of the frame */
	uint32_t zlen;  /* frame bytes */
	uint32_t len;   /* plain bytes (whole pages) */
	uint64_t start; /* plain offset of the chunk's first byte */
};

struct td_zstream {
	struct td_zchunk *chunk;
	uint32_t nr;         /* chunks usable */
	uint64_t plain;      /* plain bytes in them */
	char *cut;           /* why the chunk list ended early (truncated file), or NULL */
	uint64_t cut_off;
	unsigned char *buf;  /* the chunk decoded last */
	int64_t cached;      /* its index, -1 */
	void *dctx;
};

/*
 * Index the chunks of the data at file offset @off, @len bytes long (the
 * CPU table's entry).  A chunk running past the data or the file ends the
 * list there, remembered in z->cut for after the complete ones (a missing
 * count too: no chunk at all).  0, or -1 when out of memory.
 */
int td_zstream_open(struct td_zstream *z, int fd, uint64_t fsize, uint64_t off, uint64_t len,
		    uint32_t page_size, char *why, size_t whylen);
/*
 * The page at plain offset @at into @page.  0, or -1 with @why (and *@where,
 * the file offset of the bad chunk) when its frame does not decode.
 */
int td_zstream_page(struct td_zstream *z, int fd, uint64_t at, unsigned char *page,
		    uint32_t page_size, uint64_t *where, char *why, size_t whylen);
void td_zstream_free(struct td_zstream *z);

#endif
