// SPDX-License-Identifier: MIT
/*
 * Function ranges from .eh_frame_hdr and .eh_frame (common/ehframe.h): this
 * test program's own table, read as the runtime reads a mapped object, and
 * hostile copies of it (every byte changed in turn, random bytes), which
 * must be refused or read, never followed out of bounds.
 */
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "common/ehframe.h"
#include "ut_test.h"

/* Where the test finds its own FDE. */
__attribute__((noinline)) int ut_eh_probe(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 1;
}

struct image {
	uint64_t hdr;
	uint64_t lo[16], hi[16];
	int n;
};

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct image *im = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0; /* the program is the one without a name */
	for (int i = 0; i < info->dlpi_phnum && im->n < 16; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_GNU_EH_FRAME)
			im->hdr = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD) {
			im->lo[im->n] = info->dlpi_addr + ph->p_vaddr;
			im->hi[im->n++] = info->dlpi_addr + ph->p_vaddr + ph->p_filesz;
		}
	}
	return 1;
}

static const uint8_t *mapped(void *ctx, uint64_t addr, size_t len)
{
	const struct image *im = ctx;

	for (int i = 0; i < im->n; i++)
		if (addr >= im->lo[i] && addr + len <= im->hi[i] && addr + len > addr)
			return (const uint8_t *)addr;
	return NULL;
}

/* A copy of bytes [base, base + size) that the reader sees at the same addresses. */
struct copy {
	uint64_t base;
	uint8_t *bytes;
	size_t size;
};

static const uint8_t *copied(void *ctx, uint64_t addr, size_t len)
{
	const struct copy *c = ctx;

	if (addr < c->base || len > c->size || addr - c->base > c->size - len)
		return NULL;
	return c->bytes + (addr - c->base);
}

TEST(own_table)
{
	struct image im = {0};
	struct ut_eh_range *v = NULL;
	uint64_t f = (uint64_t)(uintptr_t)ut_eh_probe;
	long n, hit = 0;

	dl_iterate_phdr(find_self, &im);
	CHECK(im.hdr != 0);
	n = ut_eh_ranges(im.hdr, mapped, &im, &v);
	CHECK(n > 10);
	for (long i = 0; i < n; i++) {
		CHECK(v[i].lo < v[i].hi);
		if (i)
			CHECK(v[i - 1].lo <= v[i].lo);
		hit += v[i].lo == f;
	}
	CHECK_EQ_INT(hit, 1);
	free(v);
}

TEST(bad_headers)
{
	uint8_t b[64] = {0};
	struct copy c = {0x1000, b, sizeof(b)};
	struct ut_eh_range *v = NULL;

	CHECK_EQ_INT(ut_eh_ranges(0, copied, &c, &v), -ENOENT);
	CHECK_EQ_INT(ut_eh_ranges(0x1000, copied, &c, &v), -ENOENT); /* version 0 */
	b[0] = 1, b[1] = 0x1b, b[2] = 0x03, b[3] = 0x3b;
	CHECK_EQ_INT(ut_eh_ranges(0x1000, copied, &c, &v), -ENOENT); /* no entry */
	b[8] = 1;                                                      /* one, pointing at zeros */
	CHECK_EQ_INT(ut_eh_ranges(0x1000, copied, &c, &v), -ENOENT);
	b[3] = 0x1b;
	CHECK_EQ_INT(ut_eh_ranges(0x1000, copied, &c, &v), -ENOTSUP);
	b[3] = 0x3b, b[8] = 0xff, b[9] = 0xff, b[10] = 0xff, b[11] = 0x7f; /* a huge count */
	CHECK_EQ_INT(ut_eh_ranges(0x1000, copied, &c, &v), -ENOENT);
	CHECK(v == NULL);
}

/* The program's table and its .eh_frame, copied and damaged: refused or read, in bounds. */
TEST(damaged_copies)
{
	struct image im = {0};
	struct ut_eh_range *v = NULL;
	struct copy c;
	uint64_t end = 0;
	long n, ok = 0;

	dl_iterate_phdr(find_self, &im);
	for (int i = 0; i < im.n; i++)
		if (im.hdr >= im.lo[i] && im.hdr < im.hi[i])
			end = im.hi[i];
	CHECK(end > im.hdr);
	c.base = im.hdr; /* the table, then .eh_frame, to the end of the segment */
	c.size = end - im.hdr;
	c.bytes = malloc(c.size);
	CHECK(c.bytes != NULL);
	if (!c.bytes)
		return;
	srand(14);
	/* each of the first 1024 bytes damaged in turn, then 512 rounds of 8 random bytes */
	for (size_t k = 0; k < 1024 + 512; k++) {
		memcpy(c.bytes, (const void *)(uintptr_t)im.hdr, c.size);
		if (k < 1024 && k < c.size)
			c.bytes[k] ^= 0x5a;
		else
			for (int j = 0; j < 8; j++)
				c.bytes[(size_t)rand() % c.size] = (uint8_t)rand();
		n = ut_eh_ranges(c.base, copied, &c, &v);
		CHECK(n == -ENOENT || n == -ENOTSUP || n > 0);
		ok += n > 0;
		free(v);
		v = NULL;
	}
	CHECK(ok > 0); /* bytes nothing reads (past the FDEs) change nothing */
	free(c.bytes);
}

int main(void)
{
	RUN(own_table);
	RUN(bad_headers);
	RUN(damaged_copies);
	TEST_EXIT();
}
