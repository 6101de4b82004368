// SPDX-License-Identifier: MIT
/*
 * The prologue relocator (arch/x86_64/relocate.c, common/prologue.h): which
 * functions it accepts, and the slot code it writes, on hand-assembled
 * x86-64 bytes decoded by capstone.
 */
#include <stdint.h>
#include <string.h>

#include "common/ehframe.h"
#include "common/prologue.h"
#include "common/symbols.h"
#include "ut_test.h"

#define ADDR 0x400000ull
#define SLOT (ADDR + 0x1000)

/* @n bytes of @head, then nops up to @size - 1, then ret. */
static size_t func(uint8_t *buf, const uint8_t *head, size_t n, size_t size)
{
	memcpy(buf, head, n);
	memset(buf + n, 0x90, size - n);
	buf[size - 1] = 0xc3;
	return size;
}

static int32_t rel(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, 4);
	return v;
}

static enum ut_pro_why plan_of(const uint8_t *head, size_t n, size_t size, struct ut_pro_plan *p)
{
	uint8_t buf[256];

	func(buf, head, n, size);
	return ut_pro_plan(buf, size, ADDR, NULL, p);
}

TEST(rip_relative_mov)
{
	/* mov 0x10(%rip),%rax; mov %rax,%rdi; add $1,%rax */
	static const uint8_t h[] = {0x48, 0x8b, 0x05, 0x10, 0, 0, 0, 0x48, 0x89, 0xc7,
				    0x48, 0x83, 0xc0, 0x01};
	uint8_t buf[64], out[UT_PRO_SLOT], map[UT_PRO_MAX_INSN], patch[32];
	struct ut_pro_plan p;
	size_t len = 0;

	func(buf, h, sizeof(h), 20);
	CHECK_EQ_INT(ut_pro_plan(buf, 20, ADDR, NULL, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.skip, 0);
	CHECK_EQ_INT(p.moved, 10);
	CHECK_EQ_INT(p.nr, 2);
	CHECK_EQ_INT(ut_pro_relocate(&p, buf, ADDR, SLOT, out, &len, map), UT_PRO_OK);
	CHECK_EQ_INT(len, 10 + 5);
	CHECK(!memcmp(out, buf, 3));
	/* the same operand: ADDR + 7 + 0x10, now from SLOT + 7 */
	CHECK_EQ_INT(rel(out + 3), (int64_t)(ADDR + 7 + 0x10) - (int64_t)(SLOT + 7));
	CHECK(!memcmp(out + 7, buf + 7, 3));
	CHECK_EQ_INT(map[0], 0);
	CHECK_EQ_INT(map[1], 7);
	/* then back to the first instruction not moved */
	CHECK_EQ_INT(out[10], 0xe9);
	CHECK_EQ_INT(rel(out + 11), (int64_t)(ADDR + 10) - (int64_t)(SLOT + 15));
	/* the patch: a 5-byte nop (the site), jmp slot */
	ut_pro_patch(&p, ADDR, SLOT, patch);
	CHECK_EQ_INT(patch[0], 0x0f);
	CHECK_EQ_INT(patch[5], 0xe9);
	CHECK_EQ_INT(rel(patch + 6), (int64_t)SLOT - (int64_t)(ADDR + 10));
}

TEST(rip_relative_sse)
{
	/* lea 0x20(%rsi),%rax; movdqa 0x26aa4(%rip),%xmm0 (capstone 4 says disp_size 2) */
	static const uint8_t h[] = {0x48, 0x8d, 0x46, 0x20, 0x66, 0x0f, 0x6f,
				    0x05, 0xa4, 0x6a, 0x02, 0x00};
	uint8_t buf[64], out[UT_PRO_SLOT], map[UT_PRO_MAX_INSN];
	struct ut_pro_plan p;
	size_t len = 0;

	func(buf, h, sizeof(h), 20);
	CHECK_EQ_INT(ut_pro_plan(buf, 20, ADDR, NULL, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.moved, 12);
	CHECK_EQ_INT(ut_pro_relocate(&p, buf, ADDR, SLOT, out, &len, map), UT_PRO_OK);
	CHECK_EQ_INT(rel(out + 8), (int64_t)(ADDR + 12 + 0x26aa4) - (int64_t)(SLOT + 12));
}

TEST(jcc_short_to_near)
{
	/* test %edi,%edi; je +0x20; mov %rdi,%rax; add %rsi,%rax */
	static const uint8_t h[] = {0x85, 0xff, 0x74, 0x20, 0x48, 0x89, 0xf8, 0x48, 0x01, 0xf0};
	uint8_t buf[64], out[UT_PRO_SLOT], map[UT_PRO_MAX_INSN];
	struct ut_pro_plan p;
	size_t len = 0;

	func(buf, h, sizeof(h), 0x30);
	CHECK_EQ_INT(ut_pro_plan(buf, 0x30, ADDR, NULL, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.moved, 10);
	CHECK_EQ_INT(ut_pro_relocate(&p, buf, ADDR, SLOT, out, &len, map), UT_PRO_OK);
	CHECK_EQ_INT(out[2], 0x0f);
	CHECK_EQ_INT(out[3], 0x84); /* je rel32 */
	CHECK_EQ_INT(rel(out + 4), (int64_t)(ADDR + 4 + 0x20) - (int64_t)(SLOT + 8));
	CHECK_EQ_INT(map[2], 8);
	CHECK_EQ_INT(len, 2 + 6 + 3 + 3 + 5);
}

TEST(call_rel32_keeps_its_return_address)
{
	/* mov %rdi,%rbx; add $1,%rdi; call +0x100 */
	static const uint8_t h[] = {0x48, 0x89, 0xfb, 0x48, 0x83, 0xc7, 0x01, 0xe8, 0, 1, 0, 0};
	uint8_t buf[64], out[UT_PRO_SLOT], map[UT_PRO_MAX_INSN];
	uint64_t ret = ADDR + 12;
	struct ut_pro_plan p;
	uint32_t lo, hi;
	size_t len = 0;

	func(buf, h, sizeof(h), 20);
	CHECK_EQ_INT(ut_pro_plan(buf, 20, ADDR, NULL, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.moved, 12);
	CHECK_EQ_INT(ut_pro_relocate(&p, buf, ADDR, SLOT, out, &len, map), UT_PRO_OK);
	/* lea -8(%rsp),%rsp; movl $lo,(%rsp); movl $hi,4(%rsp); jmp target */
	CHECK_EQ_INT(out[7], 0x48);
	CHECK_EQ_INT(out[8], 0x8d);
	memcpy(&lo, out + 7 + 8, 4);
	memcpy(&hi, out + 7 + 16, 4);
	CHECK_EQ_INT(lo, (uint32_t)ret);
	CHECK_EQ_INT(hi, (uint32_t)(ret >> 32));
	CHECK_EQ_INT(out[7 + 20], 0xe9);
	CHECK_EQ_INT(rel(out + 7 + 21), (int64_t)(ADDR + 12 + 0x100) - (int64_t)(SLOT + 7 + 25));
	/*
	 * A call that would not be the last of 10 moved bytes: the short form
	 * moves it alone (its return stays in place), or as the last of more;
	 * an indirect call among them is refused.
	 */
	static const uint8_t first[] = {0xe8, 0, 1, 0, 0, 0x48, 0x89, 0xfb, 0x48, 0x83, 0xc7, 0x01};
	static const uint8_t last[] = {0x31, 0xc0, 0xe8, 0, 1, 0, 0, 0x48, 0x89, 0xfb, 0x90, 0x90};
	static const uint8_t inside[] = {0xff, 0xd0, 0x48, 0x89, 0xfb, 0x48, 0x89, 0xfb, 0x90, 0x90};
	CHECK_EQ_INT(plan_of(first, sizeof(first), 20, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.jump, 1);
	CHECK_EQ_INT(p.moved, 5);
	CHECK_EQ_INT(p.call, 1);
	CHECK_EQ_INT(plan_of(last, sizeof(last), 20, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.moved, 7);
	CHECK_EQ_INT(p.call, 1);
	CHECK_EQ_INT(plan_of(inside, sizeof(inside), 20, &p), UT_PRO_INSN);
}

TEST(endbr64_stays_at_the_entry)
{
	/* endbr64; push %rbp; mov %rsp,%rbp; sub $0x10,%rsp; mov %rdi,%rax */
	static const uint8_t h[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5,
				    0x48, 0x83, 0xec, 0x10, 0x48, 0x89, 0xf8};
	struct ut_pro_plan p;

	CHECK_EQ_INT(plan_of(h, sizeof(h), 24, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.skip, 4);
	CHECK_EQ_INT(p.moved, 11);
	CHECK_EQ_INT(p.nr, 4);
}

TEST(refusals)
{
	struct ut_pro_plan p;
	/* mov %rdi,%rax; ret: shorter than a patch */
	static const uint8_t shorty[] = {0x48, 0x89, 0xf8};
	/* xor %eax,%eax; ret; then more code: a ret among the moved bytes */
	static const uint8_t ret[] = {0x31, 0xc0, 0xc3};
	/* xor %eax,%eax; 1: add $2,%rax; sub $1,%rdi; jg 1b */
	static const uint8_t loop[] = {0x31, 0xc0, 0x48, 0x83, 0xc0, 0x02,
				       0x48, 0x83, 0xef, 0x01, 0x7f, 0xf6};
	/* mov %rdi,%rax; add; add; then jmp *%rax further on */
	static const uint8_t ijmp[] = {0x48, 0x89, 0xf8, 0x48, 0x83, 0xc0, 0x01, 0x48,
				       0x83, 0xc0, 0x01, 0xff, 0xe0};
	/* jmp *%rax first */
	static const uint8_t ijmp0[] = {0xff, 0xe0};
	/* 0x06 (push %es) does not exist in 64-bit mode */
	static const uint8_t bad[] = {0x06, 0x90};
	/* syscall among the moved bytes, even the short form's */
	static const uint8_t sys[] = {0x31, 0xc0, 0x0f, 0x05};

	CHECK_EQ_INT(plan_of(shorty, sizeof(shorty), 4, &p), UT_PRO_SHORT);
	CHECK_EQ_INT(plan_of(ret, sizeof(ret), 20, &p), UT_PRO_RETURN);
	CHECK_EQ_INT(plan_of(loop, sizeof(loop), 20, &p), UT_PRO_TARGET);
	CHECK_EQ_INT(plan_of(ijmp, sizeof(ijmp), 20, &p), UT_PRO_JUMPTABLE);
	CHECK_EQ_INT(plan_of(ijmp0, sizeof(ijmp0), 20, &p), UT_PRO_RETURN);
	CHECK_EQ_INT(plan_of(bad, sizeof(bad), 20, &p), UT_PRO_UNDECODABLE);
	CHECK_EQ_INT(plan_of(sys, sizeof(sys), 20, &p), UT_PRO_INSN);
}

TEST(short_form)
{
	struct ut_pro_plan p;
	/* imul $0x9e3779b1,%edi,%eax; add $1,%eax; ret: a return within 10 bytes */
	static const uint8_t leaf[] = {0x69, 0xc7, 0xb1, 0x79, 0x37, 0x9e, 0x83, 0xc0, 0x01, 0xc3};
	/* endbr64 first: the 5 bytes after it */
	static const uint8_t leaf_cf[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x69, 0xc7, 0xb1, 0x79,
					  0x37, 0x9e, 0xff, 0xc0, 0xc3};
	/* mov $0x27,%eax; syscall: the system call after the 5 bytes stays in place */
	static const uint8_t sys[] = {0xb8, 0x27, 0, 0, 0, 0x0f, 0x05, 0xc3};
	/* mov %rdi,%rax; inc %rax; ret: the ret within 10 bytes, after the first 6 */
	static const uint8_t ret5[] = {0x48, 0x89, 0xf8, 0x48, 0xff, 0xc0, 0xc3};
	/* a function with 10 bytes to move keeps the site at its entry */
	static const uint8_t long_[] = {0x55, 0x48, 0x89, 0xe5, 0x48, 0x83, 0xec, 0x10,
					0x48, 0x89, 0xf8, 0xc9, 0xc3};

	CHECK_EQ_INT(plan_of(leaf, sizeof(leaf), sizeof(leaf), &p), UT_PRO_OK);
	CHECK_EQ_INT(p.jump, 1);
	CHECK_EQ_INT(p.skip, 0);
	CHECK_EQ_INT(p.moved, 6);
	CHECK_EQ_INT(p.nr, 1);
	CHECK_EQ_INT(plan_of(leaf_cf, sizeof(leaf_cf), sizeof(leaf_cf), &p), UT_PRO_OK);
	CHECK_EQ_INT(p.jump, 1);
	CHECK_EQ_INT(p.skip, 4);
	CHECK_EQ_INT(p.moved, 6);
	CHECK_EQ_INT(plan_of(sys, sizeof(sys), sizeof(sys), &p), UT_PRO_OK);
	CHECK_EQ_INT(p.jump, 1);
	CHECK_EQ_INT(p.moved, 5);
	CHECK_EQ_INT(plan_of(ret5, sizeof(ret5), sizeof(ret5), &p), UT_PRO_OK);
	CHECK_EQ_INT(p.jump, 1);
	CHECK_EQ_INT(p.moved, 6);
	CHECK_EQ_INT(plan_of(long_, sizeof(long_), sizeof(long_), &p), UT_PRO_OK);
	CHECK_EQ_INT(p.jump, 0);
	CHECK_EQ_INT(p.moved, 11);
}

/* A jump table at TABLE: @n int32 entries, each an offset from TABLE. */
#define TABLE (ADDR + 0x2000)
static int32_t table[8];
static size_t table_n;

static const uint8_t *table_bytes(void *ctx, uint64_t addr, size_t len)
{
	(void)ctx;
	if (addr < TABLE || addr + len > TABLE + 4 * table_n)
		return NULL;
	return (const uint8_t *)table + (addr - TABLE);
}

/* Code: the function's page. */
static const uint8_t *code_page(void *ctx, uint64_t addr, size_t len)
{
	static const uint8_t any[16];

	(void)ctx;
	return addr >= ADDR && addr + len <= ADDR + 0x1000 && len <= sizeof(any) ? any : NULL;
}

TEST(switch_tables)
{
	/*
	 * push %rbx; mov %edi,%eax; lea T(%rip),%rdx; movslq (%rdx,%rax,4),%rax;
	 * add %rdx,%rax; jmp *%rax; then the cases (nops), ret: gcc's PIC switch
	 */
	uint8_t h[] = {0x53, 0x89, 0xf8, 0x48, 0x8d, 0x15, 0, 0, 0, 0,
		       0x48, 0x63, 0x04, 0x82, 0x48, 0x01, 0xd0, 0xff, 0xe0};
	struct ut_pro_data d = {table_bytes, code_page, NULL};
	uint8_t buf[64];
	struct ut_pro_plan p;
	int32_t disp = (int32_t)(TABLE - (ADDR + 10));

	memcpy(h + 6, &disp, 4);
	func(buf, h, sizeof(h), 48);
	table_n = 3; /* cases at +0x20, +0x24, +0x28 */
	for (size_t i = 0; i < table_n; i++)
		table[i] = (int32_t)(ADDR + 0x20 + 4 * i - TABLE);
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, NULL, &p), UT_PRO_JUMPTABLE); /* nothing to read */
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, &d, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.jump, 0);
	CHECK_EQ_INT(p.moved, 10);
	/* a case elsewhere in the code (a .cold part): the entries after it count */
	table[1] = (int32_t)(ADDR + 0x800 - TABLE);
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, &d, &p), UT_PRO_OK);
	table[2] = (int32_t)(ADDR + 3 - TABLE);
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, &d, &p), UT_PRO_TARGET);
	table[2] = (int32_t)(ADDR + 0x28 - TABLE);
	/* a case in the moved bytes: refused as a branch of its own */
	table[1] = (int32_t)(ADDR + 3 - TABLE);
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, &d, &p), UT_PRO_TARGET);
	/* the table cannot be read */
	table_n = 0;
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, &d, &p), UT_PRO_JUMPTABLE);
	/*
	 * The lea hoisted out of a loop (a branch lands between it and the
	 * jump): read when nothing else writes rdx, refused when something does.
	 * push %rbx; push %rbp; sub $0x18,%rsp; mov %rdi,%rbx; mov %esi,%ebp;
	 * lea T(%rip),%rdx; mov %edi,%eax; L: movslq (%rdx,%rax,4),%rax;
	 * add %rdx,%rax; jmp *%rax; mov %rsi,%rdx (or nops); jmp L
	 */
	uint8_t hoist[] = {0x53, 0x55, 0x48, 0x83, 0xec, 0x18, 0x48, 0x89, 0xfb, 0x89, 0xf5,
			   0x48, 0x8d, 0x15, 0, 0, 0, 0, 0x89, 0xf8, 0x48, 0x63, 0x04, 0x82,
			   0x48, 0x01, 0xd0, 0xff, 0xe0, 0x48, 0x89, 0xf2, 0xeb, 0xf2};

	disp = (int32_t)(TABLE - (ADDR + 18));
	memcpy(hoist + 14, &disp, 4);
	func(buf, hoist, sizeof(hoist), 48);
	table_n = 3; /* cases at +0x24, +0x28, +0x2c */
	for (size_t i = 0; i < table_n; i++)
		table[i] = (int32_t)(ADDR + 0x24 + 4 * i - TABLE);
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, &d, &p), UT_PRO_JUMPTABLE);
	memset(buf + 29, 0x90, 3); /* no other write to rdx */
	CHECK_EQ_INT(ut_pro_plan(buf, 48, ADDR, &d, &p), UT_PRO_OK);
	CHECK_EQ_INT(p.moved, 11);
	/* not a switch: mov %rdi,%rax; jmp *%rax (a tail call through a pointer) */
	static const uint8_t tail[] = {0x48, 0x89, 0xf8, 0x48, 0x89, 0xc1, 0x48, 0x89, 0xca,
				       0x48, 0x89, 0xd6, 0xff, 0xe0};
	table_n = 3;
	func(buf, tail, sizeof(tail), 20);
	CHECK_EQ_INT(ut_pro_plan(buf, 20, ADDR, &d, &p), UT_PRO_JUMPTABLE);
}

TEST(out_of_reach)
{
	static const uint8_t h[] = {0x48, 0x8b, 0x05, 0x10, 0, 0, 0, 0x48, 0x89, 0xc7};
	uint8_t buf[64], out[UT_PRO_SLOT], map[UT_PRO_MAX_INSN];
	struct ut_pro_plan p;
	size_t len = 0;

	func(buf, h, sizeof(h), 20);
	CHECK_EQ_INT(ut_pro_plan(buf, 20, ADDR, NULL, &p), UT_PRO_OK);
	CHECK_EQ_INT(ut_pro_relocate(&p, buf, ADDR, ADDR + (3ull << 30), out, &len, map),
		     UT_PRO_REACH);
}

/* ut_pro_walk over two functions in @image (at ADDR) */
static uint8_t image[0x80];

static const uint8_t *image_code(void *ctx, uint64_t addr, size_t len)
{
	(void)ctx;
	return addr >= ADDR && addr + len <= ADDR + sizeof(image) ? image + (addr - ADDR) : NULL;
}

static enum ut_pro_why verdict[2];

static void found(void *ctx, const struct ut_sym *s, enum ut_pro_why why,
		  const struct ut_pro_plan *p)
{
	(void)ctx;
	(void)p;
	verdict[s->addr != ADDR] = why;
}

TEST(jump_from_another_function)
{
	/* f: mov %rdi,%rax; add $1,%rax; add $2,%rax; ...  f.cold-like g: jmp f+3 */
	static const uint8_t f[] = {0x48, 0x89, 0xf8, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02};
	static const uint8_t g[] = {0x48, 0x89, 0xf8, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02,
				    0xe9, 0, 0, 0, 0};
	struct ut_symtab *st = ut_symtab_new();
	int32_t back = -(int32_t)(0x40 + sizeof(g) - 3);

	CHECK(st);
	func(image, f, sizeof(f), 0x20);
	func(image + 0x40, g, sizeof(g), 0x20);
	memcpy(image + 0x40 + 12, &back, 4);
	ut_symtab_add(st, ADDR, 0x20, "f", NULL);
	ut_symtab_add(st, ADDR + 0x40, 0x20, "g", NULL);
	ut_symtab_finish(st);
	ut_pro_walk(st, NULL, 0, NULL, image_code, NULL, NULL, found, NULL);
	CHECK_EQ_INT(verdict[0], UT_PRO_FOREIGN);
	CHECK_EQ_INT(verdict[1], UT_PRO_OK);
	/* a jump to the entry itself is a tail call */
	back -= 3;
	memcpy(image + 0x40 + 12, &back, 4);
	ut_pro_walk(st, NULL, 0, NULL, image_code, NULL, NULL, found, NULL);
	CHECK_EQ_INT(verdict[0], UT_PRO_OK);
	ut_symtab_free(st);
}

/*
 * A stripped object: g has no symbol, only an FDE (common/prologue.h:
 * struct ut_pro_frames); its jump into f's first bytes is still seen.
 * Without FDEs nothing can be checked, and f is refused.
 */
TEST(jump_from_code_only_an_fde_knows)
{
	static const uint8_t f[] = {0x48, 0x89, 0xf8, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x83, 0xc0, 0x02};
	static const uint8_t g[] = {0x48, 0x89, 0xf8, 0xe9, 0, 0, 0, 0};
	const struct ut_eh_range fdes[] = {{ADDR, ADDR + 0x20}, {ADDR + 0x40, ADDR + 0x60}};
	struct ut_pro_frames frames = {fdes, 2}, none = {NULL, 0};
	struct ut_symtab *st = ut_symtab_new();
	int32_t back = -(int32_t)(0x40 + sizeof(g) - 3);

	CHECK(st);
	memset(image, 0xcc, sizeof(image));
	func(image, f, sizeof(f), 0x20);
	func(image + 0x40, g, sizeof(g), 0x20);
	memcpy(image + 0x40 + 4, &back, 4);
	ut_symtab_add(st, ADDR, 0x20, "f", NULL); /* .dynsym names f only */
	ut_symtab_finish(st);
	verdict[0] = UT_PRO_NR;
	ut_pro_walk(st, NULL, 0, NULL, image_code, NULL, NULL, found, NULL);
	CHECK_EQ_INT(verdict[0], UT_PRO_OK); /* what the symbols alone let through */
	ut_pro_walk(st, NULL, 0, &frames, image_code, NULL, NULL, found, NULL);
	CHECK_EQ_INT(verdict[0], UT_PRO_FOREIGN);
	ut_pro_walk(st, NULL, 0, &none, image_code, NULL, NULL, found, NULL);
	CHECK_EQ_INT(verdict[0], UT_PRO_NOFRAMES);
	ut_symtab_free(st);
}

static enum ut_pro_why refuse_all(void *ctx, uint64_t lo, uint64_t hi)
{
	(void)ctx;
	(void)lo;
	(void)hi;
	return UT_PRO_OVERLAP;
}

/* USDT probes (ut_pro_plan_probe): the window of a jump holding the probe's nop. */
TEST(probe_windows)
{
	/* nop; add $1,%rax; ret: the window starts at the nop */
	static const uint8_t plain[] = {0x90, 0x48, 0x83, 0xc0, 0x01, 0xc3};
	/* mov %rdi,%rax; test $1,%dil; jz +1; nop; add $1,%rax; ret: jz lands after the nop */
	static const uint8_t after_if[] = {0x48, 0x89, 0xf8, 0x40, 0xf6, 0xc7, 0x01, 0x74, 0x01,
					   0x90, 0x48, 0x83, 0xc0, 0x01, 0xc3};
	/* nop; mov %rdi,%rax; ret: nothing can move */
	static const uint8_t before_ret[] = {0x90, 0x48, 0x89, 0xf8, 0xc3};
	struct ut_pro_plan p;
	unsigned nop = 99;
	uint8_t slot[UT_PRO_SLOT], map[UT_PRO_MAX_INSN];
	size_t len;

	CHECK_EQ_INT(ut_pro_plan_probe(plain, sizeof(plain), ADDR, ADDR, NULL, NULL, &p, &nop),
		     UT_PRO_OK);
	CHECK_EQ_INT(p.skip, 0);
	CHECK_EQ_INT(p.moved, 5);
	CHECK_EQ_INT(nop, 0);
	CHECK_EQ_INT(ut_pro_plan_probe(after_if, sizeof(after_if), ADDR, ADDR + 9, NULL, NULL, &p,
				       &nop),
		     UT_PRO_OK);
	CHECK_EQ_INT(p.skip, 3); /* from the test: mov would make 10 bytes, past the target too */
	CHECK_EQ_INT(p.moved, 7);
	CHECK_EQ_INT(p.nr, 3);
	CHECK_EQ_INT(nop, 2);
	/* the jz moved before the nop becomes a jcc rel32 to its old target */
	CHECK_EQ_INT(ut_pro_relocate(&p, after_if, ADDR, SLOT, slot, &len, map), UT_PRO_OK);
	CHECK_EQ_INT(slot[map[1]], 0x0f);
	CHECK_EQ_INT(slot[map[1] + 1], 0x84);
	CHECK_EQ_INT((int64_t)(SLOT + map[1] + 6) + rel(slot + map[1] + 2), (int64_t)ADDR + 10);
	CHECK_EQ_INT(ut_pro_plan_probe(before_ret, sizeof(before_ret), ADDR, ADDR, NULL, NULL, &p,
				       &nop),
		     UT_PRO_RETURN);
	CHECK_EQ_INT(ut_pro_plan_probe(plain, sizeof(plain), ADDR, ADDR + 2, NULL, NULL, &p, &nop),
		     UT_PRO_BOUNDARY);
	CHECK_EQ_INT(ut_pro_plan_probe(plain, sizeof(plain), ADDR, ADDR, refuse_all, NULL, &p, &nop),
		     UT_PRO_OVERLAP);
}

int main(void)
{
	RUN(rip_relative_mov);
	RUN(rip_relative_sse);
	RUN(jcc_short_to_near);
	RUN(call_rel32_keeps_its_return_address);
	RUN(endbr64_stays_at_the_entry);
	RUN(refusals);
	RUN(short_form);
	RUN(switch_tables);
	RUN(out_of_reach);
	RUN(jump_from_another_function);
	RUN(jump_from_code_only_an_fde_knows);
	RUN(probe_windows);
	TEST_EXIT();
}
