// SPDX-License-Identifier: MIT
/*
 * x86-64 prologue relocation (common/prologue.h): which functions can have
 * their first instructions moved to a slot, and the slot's code.
 *
 * capstone tells each instruction's length and where a rip-relative
 * displacement sits; the branches that matter here are few and simple, so
 * they are told from their opcodes:
 *
 *   eb rel8, e9 rel32            jmp            moved: e9 rel32 from the slot
 *   70+cc rel8, 0f 80+cc rel32   jcc            moved: 0f 80+cc rel32
 *   e8 rel32                     call           moved: push the original return
 *                                               address, jmp rel32 (last moved only)
 *   ff /2, ff /3                 indirect call  refused when moved
 *   e0-e3, c7 f8                 loop, jrcxz, xbegin: refused when moved
 *   ff /4, ff /5                 indirect jmp   refused anywhere in the function
 *   c3 c2 cb ca cf, cd, cc, f1, 0f 05, 0f 34: returns, interrupts, system calls
 *
 * A call among the moved bytes must be the last of them: a thread inside
 * the callee when the patch is installed returns to the instruction after
 * it, which must not be a moved one.  A system call is refused for the same
 * reason (a thread blocked in it resumes after it).
 */
#include <capstone/capstone.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <string.h>

#include "arch.h"
#include "common/prologue.h"

/* What an instruction is, for the plan and the relocation. */
enum ikind {
	I_PLAIN,     /* runs anywhere as it is (rip-relative operands aside) */
	I_JMP,       /* jmp rel8/rel32 */
	I_JCC,       /* jcc rel8/rel32 */
	I_CALL,      /* call rel32 */
	I_RET,       /* ret, iret */
	I_IJMP,      /* indirect jmp: a jump table, or a tail call through a pointer */
	I_ICALL,     /* indirect call */
	I_SPECIAL,   /* loop/jrcxz/xbegin, syscall, int: refused when moved */
};

struct insn {
	enum ikind kind;
	unsigned len;
	uint64_t target;   /* I_JMP, I_JCC, I_CALL */
	unsigned cc;       /* I_JCC: the condition */
	unsigned disp_off; /* a rip-relative displacement's offset, 0 if none */
};

/*
 * Two decoders for the process (the runtime calls them under its lock):
 * one with capstone's operand details, for the moved instructions, one
 * without, for sweeping whole functions (lengths and opcodes are all the
 * sweep needs, and details cost capstone about half its time).
 */
static csh handle[2];
static cs_insn *scratch[2];
static bool opened[2];

/*
 * capstone itself, loaded when first needed: the runtime is in every traced
 * process, and linking the library cost each of them a millisecond of
 * relocations at start-up, though only -O patch-prologue decodes anything.
 */
static struct {
	cs_err (*open)(cs_arch arch, cs_mode mode, csh *h);
	cs_err (*option)(csh h, cs_opt_type type, size_t value);
	cs_insn *(*malloc)(csh h);
	bool (*disasm_iter)(csh h, const uint8_t **code, size_t *size, uint64_t *addr,
			    cs_insn *insn);
} cs;

static bool cs_load(void)
{
	static const char *const names[] = {"libcapstone.so.4", "libcapstone.so.5", "libcapstone.so"};
	static int state; /* 0: not tried, 1: loaded, -1: not there */
	void *h = NULL;

	if (state)
		return state > 0;
	state = -1;
	/*
	 * libc's dlopen, not the runtime's wrapper (libutrace/dlopen.c): that
	 * one takes the runtime's lock, held here, to look for sites.
	 */
	void *(*open_lib)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");

	if (!open_lib)
		open_lib = dlopen;
	for (size_t i = 0; !h && i < sizeof(names) / sizeof(names[0]); i++)
		h = open_lib(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	*(void **)&cs.open = dlsym(h, "cs_open");
	*(void **)&cs.option = dlsym(h, "cs_option");
	*(void **)&cs.malloc = dlsym(h, "cs_malloc");
	*(void **)&cs.disasm_iter = dlsym(h, "cs_disasm_iter");
	if (cs.open && cs.option && cs.malloc && cs.disasm_iter)
		state = 1;
	return state > 0;
}

static bool decoder(int detail)
{
	if (opened[detail])
		return scratch[detail] != NULL;
	opened[detail] = true;
	if (!cs_load() || cs.open(CS_ARCH_X86, CS_MODE_64, &handle[detail]) != CS_ERR_OK)
		return false;
	cs.option(handle[detail], CS_OPT_DETAIL, detail ? CS_OPT_ON : CS_OPT_OFF);
	scratch[detail] = cs.malloc(handle[detail]);
	return scratch[detail] != NULL;
}

static bool is_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf2 || b == 0xf3 || b == 0x2e || b == 0x3e ||
	       b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65 || (b >= 0x40 && b <= 0x4f);
}

static int32_t rel_at(const uint8_t *p, unsigned n)
{
	int32_t v;

	if (n == 1)
		return (int8_t)p[0];
	memcpy(&v, p, 4);
	return v;
}

/* Classify by opcode (after prefixes); @b: the instruction's bytes, @len long. */
static void classify(const uint8_t *b, unsigned len, uint64_t addr, struct insn *in)
{
	unsigned i = 0;
	bool opsize = false;

	while (i < len && is_prefix(b[i]))
		opsize |= b[i++] == 0x66;
	in->kind = I_PLAIN;
	if (i >= len)
		return;
	uint8_t op = b[i], op2 = i + 1 < len ? b[i + 1] : 0;
	uint8_t reg = (uint8_t)((op2 >> 3) & 7);

	if (op == 0xeb || op == 0xe9 || op == 0xe8 || (op >= 0x70 && op <= 0x7f) ||
	    (op == 0x0f && op2 >= 0x80 && op2 <= 0x8f)) {
		in->kind = op == 0xe8 ? I_CALL : (op == 0xeb || op == 0xe9) ? I_JMP : I_JCC;
		in->cc = op == 0x0f ? op2 & 0xfu : op & 0xfu;
		unsigned n = (op == 0xeb || (op >= 0x70 && op <= 0x7f)) ? 1 : 4;
		in->target = addr + len + (int64_t)rel_at(b + len - n, n);
		if (opsize)
			in->kind = I_SPECIAL; /* a 16-bit displacement: never emitted by compilers */
	} else if ((op >= 0xe0 && op <= 0xe3) || (op == 0xc7 && op2 == 0xf8) || op == 0xcd ||
		   op == 0xcc || op == 0xf1 || (op == 0x0f && (op2 == 0x05 || op2 == 0x34))) {
		in->kind = I_SPECIAL;
	} else if (op == 0xc3 || op == 0xc2 || op == 0xcb || op == 0xca || op == 0xcf) {
		in->kind = I_RET;
	} else if ((op == 0xff && (reg == 4 || reg == 5)) || op == 0xea) {
		in->kind = I_IJMP;
	} else if (op == 0xff && (reg == 2 || reg == 3)) {
		in->kind = I_ICALL;
	}
}

/*
 * The instruction at @code (address @addr, @avail bytes) by decoder
 * @detail: its length and kind; false if undecodable.
 */
static bool disasm(int detail, const uint8_t *code, size_t avail, uint64_t addr, struct insn *in)
{
	const uint8_t *p = code;
	size_t n = avail;
	uint64_t a = addr;

	memset(in, 0, sizeof(*in));
	if (!decoder(detail) || !cs.disasm_iter(handle[detail], &p, &n, &a, scratch[detail]))
		return false;
	in->len = scratch[detail]->size;
	classify(code, in->len, addr, in);
	return true;
}

/* The length of the instruction at @code and its kind (no operand details); false if undecodable. */
static bool decode_kind(const uint8_t *code, size_t avail, uint64_t addr, struct insn *in)
{
	return disasm(0, code, avail, addr, in);
}

/* Decode one instruction at @code (address @addr, @avail bytes); false if undecodable. */
static bool decode(const uint8_t *code, size_t avail, uint64_t addr, struct insn *in)
{
	if (!disasm(1, code, avail, addr, in))
		return false;
	/*
	 * A rip-relative displacement is always 32 bits in 64-bit mode:
	 * capstone 4 says 2 for some SSE forms (movdqa 0(%rip)), so its size
	 * is not asked, and the bytes found must be the displacement it
	 * decoded, or the instruction is not understood.
	 */
	const cs_x86 *x = &scratch[1]->detail->x86;
	for (unsigned k = 0; k < x->op_count; k++) {
		int32_t d;

		if (x->operands[k].type != X86_OP_MEM || x->operands[k].mem.base != X86_REG_RIP)
			continue;
		if (!x->encoding.disp_offset || x->encoding.disp_offset + 4u > in->len)
			return false;
		memcpy(&d, code + x->encoding.disp_offset, 4);
		if (d != x->operands[k].mem.disp)
			return false;
		in->disp_off = x->encoding.disp_offset;
	}
	return true;
}

/* The moved instructions: whole ones from @e until at least @need bytes. */
static enum ut_pro_why plan_moved(const uint8_t *code, size_t size, uint64_t addr,
				  struct ut_pro_plan *p, unsigned need)
{
	unsigned o = p->skip;

	p->nr = 0;
	while (o - p->skip < need) {
		struct insn in;

		if (o >= size || p->nr >= UT_PRO_MAX_INSN)
			return UT_PRO_SHORT;
		if (!decode(code + o, size - o, addr + o, &in))
			return UT_PRO_UNDECODABLE;
		if (o + in.len > size)
			return UT_PRO_SHORT;
		if (in.kind == I_RET || in.kind == I_IJMP)
			return UT_PRO_RETURN;
		if (in.kind == I_SPECIAL || in.kind == I_ICALL)
			return UT_PRO_INSN;
		p->off[p->nr++] = (uint8_t)(o - p->skip);
		o += in.len;
		if (in.kind == I_CALL && o - p->skip < need)
			return UT_PRO_INSN; /* a return address inside the moved bytes */
		p->call = in.kind == I_CALL;
	}
	p->moved = (uint8_t)(o - p->skip);
	return UT_PRO_OK;
}

/* The operands of the instruction at @o of @code, decoded with details; NULL if undecodable. */
static const cs_x86 *operands(const uint8_t *code, size_t size, uint64_t addr, size_t o,
			      unsigned *id)
{
	struct insn in;

	if (!disasm(1, code + o, size - o, addr + o, &in))
		return NULL;
	*id = scratch[1]->id;
	return &scratch[1]->detail->x86;
}

/* No segment, or DS (notrack's 3e prefix): the flat address. */
static bool flat(const x86_op_mem *m)
{
	return m->segment == X86_REG_INVALID || m->segment == X86_REG_DS;
}

/* Whether @a and @b are the same general register, whatever their widths (rdx, edx, dx, dl). */
static bool same_gpr(x86_reg a, x86_reg b)
{
	static const x86_reg fam[][5] = {
		{X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH},
		{X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH},
		{X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH},
		{X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH},
		{X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_SIL},
		{X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_DIL},
		{X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_REG_BPL},
		{X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_R8B},
		{X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_R9B},
		{X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_R10B},
		{X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_R11B},
		{X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_R12B},
		{X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_R13B},
		{X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_R14B},
		{X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_R15B},
	};

	if (a == b)
		return true;
	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		bool ia = false, ib = false;

		for (size_t j = 0; j < 5; j++) {
			ia |= fam[i][j] == a;
			ib |= fam[i][j] == b;
		}
		if (ia || ib)
			return ia && ib;
	}
	return false;
}

/* Whether instruction @id writes its first operand (all but compares, tests, bit tests, pushes). */
static bool writes_first(unsigned id)
{
	return id != X86_INS_CMP && id != X86_INS_TEST && id != X86_INS_PUSH && id != X86_INS_BT;
}

static bool op_reg(const cs_x86 *x, unsigned k, x86_reg r)
{
	return k < x->op_count && x->operands[k].type == X86_OP_REG && x->operands[k].reg == r;
}

/*
 * A jump table's targets (entries of @w bytes at @t: 4, an offset from
 * @t, or 8, an address): none may land in [@lo, @end).  Its length is not
 * known: entries are read until one leads out of the object's code or
 * cannot be read (a case in the function's .cold part is code too, and
 * the entries after it count).  Read past its end, the data after it can
 * only add needless refusals.  UT_PRO_OK; UT_PRO_TARGET; UT_PRO_JUMPTABLE
 * if no entry leads into the function (not a table of this jump).
 */
static enum ut_pro_why table_targets(const struct ut_pro_data *d, uint64_t t, unsigned w,
				     uint64_t addr, size_t size, uint64_t lo, uint64_t end)
{
	unsigned k, mine = 0;

	for (k = 0; k < 65536; k++) {
		const uint8_t *e = d->read(d->ctx, t + (uint64_t)k * w, w);
		uint64_t to;

		if (!e)
			break;
		if (w == 4) {
			int32_t v;

			memcpy(&v, e, 4);
			to = t + (uint64_t)(int64_t)v;
		} else {
			memcpy(&to, e, 8);
		}
		if (!d->code(d->ctx, to, 1))
			break;
		if (to >= lo && to < end)
			return UT_PRO_TARGET;
		mine += to >= addr && to < addr + size;
	}
	return mine ? UT_PRO_OK : UT_PRO_JUMPTABLE;
}

/* Whether a direct branch of the function lands in (@from, @to]. */
static bool lands_between(const uint8_t *code, size_t size, uint64_t addr, uint64_t from,
			  uint64_t to)
{
	for (size_t k = 0; k < size;) {
		struct insn in;

		if (!decode_kind(code + k, size - k, addr + k, &in))
			return true;
		if ((in.kind == I_JMP || in.kind == I_JCC) && in.target > from && in.target <= to)
			return true;
		k += in.len;
	}
	return false;
}

/*
 * Where the PIC switch jump at @o finds its table, base register @rb: the
 * `lea T(%rip),%rb` last before it, when no other write to rb and no
 * branch target lies between them (the value rb has at the jump); else,
 * when the function writes rb nowhere but with such leas (one hoisted out
 * of a loop), each of them.  Anything else: UT_PRO_JUMPTABLE.
 */
static enum ut_pro_why pic_table(const uint8_t *code, size_t size, uint64_t addr, size_t o,
				 x86_reg rb, const struct ut_pro_data *d, uint64_t lo,
				 uint64_t end)
{
	uint64_t last = 0, bases[16];
	size_t last_end = 0, nb = 0;
	bool other = false, many = false;
	enum ut_pro_why why = UT_PRO_JUMPTABLE;
	const cs_x86 *x;
	unsigned id;

	for (size_t k = 0; k < size;) {
		size_t len;

		if (!(x = operands(code, size, addr, k, &id)))
			return UT_PRO_UNDECODABLE;
		len = scratch[1]->size;
		if (id == X86_INS_LEA && op_reg(x, 0, rb) && x->op_count == 2 &&
		    x->operands[1].type == X86_OP_MEM && x->operands[1].mem.base == X86_REG_RIP &&
		    x->operands[1].mem.index == X86_REG_INVALID) {
			uint64_t t = addr + k + len + (uint64_t)x->operands[1].mem.disp;

			if (nb < sizeof(bases) / sizeof(bases[0]))
				bases[nb++] = t;
			else
				many = true;
			if (k < o) {
				last = t;
				last_end = k + len;
			}
		} else if (x->op_count && x->operands[0].type == X86_OP_REG &&
			   same_gpr(x->operands[0].reg, rb) && writes_first(id)) {
			other = true;
			if (k < o)
				last = 0; /* rb changed since */
		}
		k += len;
	}
	if (last && !lands_between(code, size, addr, addr + last_end - 1, addr + o))
		return table_targets(d, last, 4, addr, size, lo, end);
	if (other || many)
		return UT_PRO_JUMPTABLE;
	for (size_t i = 0; i < nb; i++) {
		enum ut_pro_why t = table_targets(d, bases[i], 4, addr, size, lo, end);

		if (t == UT_PRO_TARGET)
			return t;
		if (t == UT_PRO_OK)
			why = t;
	}
	return why;
}

/*
 * The indirect jump at @o (@p1, @p2: the two instructions before it, or
 * SIZE_MAX), when it is a switch's, as gcc and clang make them: `jmp
 * *T(,%ri,8)` (8-byte addresses at T), or `lea T(%rip),%rb ... movslq
 * (%rb,%ri,4),%rx; add %rb,%rx; jmp *%rx` (4-byte offsets from T, found
 * by pic_table()).  Its targets are read
 * (@d): UT_PRO_OK when none lands in [@lo, @end), UT_PRO_TARGET when one
 * does, UT_PRO_JUMPTABLE when it is not such a jump or its table cannot
 * be read (a tail call through a pointer, a computed goto: anywhere).
 */
static enum ut_pro_why switch_jump(const uint8_t *code, size_t size, uint64_t addr, size_t o,
				   size_t p1, size_t p2, const struct ut_pro_data *d, uint64_t lo,
				   uint64_t end)
{
	const cs_x86 *x;
	unsigned id;
	x86_reg rx, rb;

	if (!d || !(x = operands(code, size, addr, o, &id)) || id != X86_INS_JMP || x->op_count != 1)
		return UT_PRO_JUMPTABLE;
	if (x->operands[0].type == X86_OP_MEM) { /* jmp *T(,%ri,8) */
		const x86_op_mem *m = &x->operands[0].mem;

		if (m->base != X86_REG_INVALID || m->index == X86_REG_INVALID || m->scale != 8 ||
		    !flat(m) || m->disp <= 0)
			return UT_PRO_JUMPTABLE;
		return table_targets(d, (uint64_t)m->disp, 8, addr, size, lo, end);
	}
	if (x->operands[0].type != X86_OP_REG || p1 == SIZE_MAX || p2 == SIZE_MAX)
		return UT_PRO_JUMPTABLE;
	rx = x->operands[0].reg;
	if (!(x = operands(code, size, addr, p1, &id)) || id != X86_INS_ADD || !op_reg(x, 0, rx) ||
	    x->op_count != 2 || x->operands[1].type != X86_OP_REG)
		return UT_PRO_JUMPTABLE;
	rb = x->operands[1].reg;
	if (rb == rx || !(x = operands(code, size, addr, p2, &id)) || id != X86_INS_MOVSXD ||
	    !op_reg(x, 0, rx) || x->op_count != 2 || x->operands[1].type != X86_OP_MEM ||
	    x->operands[1].mem.base != rb || x->operands[1].mem.scale != 4 ||
	    x->operands[1].mem.disp != 0 || !flat(&x->operands[1].mem))
		return UT_PRO_JUMPTABLE;
	return pic_table(code, size, addr, o, rb, d, lo, end);
}

/*
 * Every branch of the function (one linear sweep over its @size bytes):
 * none may land in [@lo, @end), the moved bytes but what may be reached
 * (a prologue's entry by a call: recursion; an inlined instance's first
 * byte by anything).  An indirect jump may go anywhere, but a switch's
 * (switch_jump()) when @d can read its table.
 */
static enum ut_pro_why scan_branches(const uint8_t *code, size_t size, uint64_t addr,
				     uint64_t lo, uint64_t end, const struct ut_pro_data *d)
{
	size_t p1 = SIZE_MAX, p2 = SIZE_MAX; /* the two instructions before */

	for (size_t o = 0; o < size;) {
		struct insn in;

		if (!decode_kind(code + o, size - o, addr + o, &in))
			return UT_PRO_UNDECODABLE;
		if (in.kind == I_IJMP) {
			enum ut_pro_why why = switch_jump(code, size, addr, o, p1, p2, d, lo, end);

			if (why != UT_PRO_OK)
				return why;
		}
		if ((in.kind == I_JMP || in.kind == I_JCC) && in.target >= lo && in.target < end)
			return UT_PRO_TARGET;
		if (in.kind == I_CALL && in.target > addr && in.target >= lo && in.target < end)
			return UT_PRO_TARGET;
		if (in.kind == I_SPECIAL && (code[o] == 0xe0 || code[o] == 0xe1 || code[o] == 0xe2 ||
					     code[o] == 0xe3)) {
			/* loop/jrcxz: rel8 at the end */
			uint64_t t = addr + o + in.len + (int64_t)(int8_t)code[o + in.len - 1];

			if (t >= lo && t < end)
				return UT_PRO_TARGET;
		}
		p2 = p1;
		p1 = o;
		o += in.len;
	}
	return UT_PRO_OK;
}

void ut_pro_targets(const uint8_t *code, size_t size, uint64_t addr,
		    void (*cb)(void *ctx, uint64_t target), void *ctx)
{
	for (size_t o = 0; o < size;) {
		struct insn in;

		if (!decode_kind(code + o, size - o, addr + o, &in))
			return;
		if ((in.kind == I_JMP || in.kind == I_JCC || in.kind == I_CALL) &&
		    (in.target < addr || in.target >= addr + size))
			cb(ctx, in.target);
		o += in.len;
	}
}

enum ut_pro_why ut_pro_plan(const uint8_t *code, size_t size, uint64_t addr,
			    const struct ut_pro_data *d, struct ut_pro_plan *p)
{
	enum ut_pro_why why;

	static const unsigned need[2] = {UT_PRO_PATCH, UT_PRO_JUMP};
	uint32_t skip;

	memset(p, 0, sizeof(*p));
	if (size < UT_PRO_JUMP || size < (skip = ut_arch_entry_offset(code)) + UT_PRO_JUMP)
		return UT_PRO_SHORT;
	/* the site and its jump at E; else the short form, E a jump to the site in the slot */
	for (unsigned form = 0; form < 2; form++) {
		memset(p, 0, sizeof(*p));
		p->skip = skip;
		why = plan_moved(code, size, addr, p, need[form]);
		if (why == UT_PRO_OK)
			why = scan_branches(code, size, addr, addr, addr + p->skip + p->moved, d);
		if (why == UT_PRO_OK) {
			p->jump = form == 1;
			return why;
		}
	}
	return why;
}

/* A nop (90, 0f 1f /0, with 66 or 2e prefixes): alignment padding. */
static bool is_nop(const uint8_t *b, unsigned len)
{
	unsigned i = 0;

	while (i < len && (b[i] == 0x66 || b[i] == 0x2e))
		i++;
	return (i < len && b[i] == 0x90) || (i + 1 < len && b[i] == 0x0f && b[i + 1] == 0x1f);
}

enum ut_pro_why ut_pro_plan_at(const uint8_t *code, size_t size, uint64_t addr, uint64_t at,
			       struct ut_pro_plan *p)
{
	size_t o = 0;
	enum ut_pro_why why;

	memset(p, 0, sizeof(*p));
	if (at < addr || at >= addr + size)
		return UT_PRO_NOFUNC;
	while (o < size && addr + o < at) {
		struct insn in;

		if (!decode_kind(code + o, size - o, addr + o, &in))
			return UT_PRO_UNDECODABLE;
		o += in.len;
	}
	if (addr + o != at)
		return UT_PRO_BOUNDARY;
	/*
	 * Padding the entry starts with is not the body: a loop aligned after
	 * it jumps back past it, so the site goes after it (clang).
	 */
	for (struct insn in; o < size && decode_kind(code + o, size - o, addr + o, &in) &&
			     is_nop(code + o, in.len);)
		o += in.len;
	p->skip = (uint32_t)o;
	why = plan_moved(code, size, addr, p, UT_PRO_JUMP);
	if (why == UT_PRO_OK)
		why = scan_branches(code, size, addr, addr + o + 1, addr + o + p->moved, NULL);
	return why;
}

static bool put_rel32(uint8_t *at, uint64_t from_next, uint64_t target)
{
	int64_t d = (int64_t)(target - from_next);

	if (d != (int32_t)d)
		return false;
	int32_t v = (int32_t)d;
	memcpy(at, &v, 4);
	return true;
}

/*
 * A moved call pushes the return address the call had in place (the
 * instruction after the moved bytes) and jumps: the callee returns into the
 * function's own code, so parents, backtraces and unwinding see what they
 * would without the patch.  lea leaves the flags alone (a call's are dead).
 *   48 8d 64 24 f8      lea -8(%rsp),%rsp
 *   c7 04 24 LO32       movl $lo, (%rsp)
 *   c7 44 24 04 HI32    movl $hi, 4(%rsp)
 *   e9 rel32            jmp target
 */
static size_t emit_call(uint8_t *w, uint64_t ret)
{
	static const uint8_t head[] = {0x48, 0x8d, 0x64, 0x24, 0xf8, 0xc7, 0x04, 0x24};
	uint32_t lo = (uint32_t)ret, hi = (uint32_t)(ret >> 32);

	memcpy(w, head, sizeof(head));
	memcpy(w + 8, &lo, 4);
	w[12] = 0xc7;
	w[13] = 0x44;
	w[14] = 0x24;
	w[15] = 0x04;
	memcpy(w + 16, &hi, 4);
	w[20] = 0xe9;
	return 25;
}

/* One moved instruction (at @from), re-encoded at @slot + *@o in @out. */
static bool emit(const struct insn *in, const uint8_t *src, uint64_t from, uint64_t slot,
		 uint8_t *out, size_t *o)
{
	uint8_t *w = out + *o;
	uint64_t here = slot + *o;
	unsigned n;

	switch (in->kind) {
	case I_JMP:
		w[0] = 0xe9;
		n = 5;
		break;
	case I_CALL:
		n = (unsigned)emit_call(w, from + in->len);
		break;
	case I_JCC:
		w[0] = 0x0f;
		w[1] = (uint8_t)(0x80 | in->cc);
		n = 6;
		break;
	default:
		memcpy(w, src, in->len);
		*o += in->len;
		if (!in->disp_off)
			return true;
		int32_t disp;
		memcpy(&disp, src + in->disp_off, 4);
		/* the operand's address was: source end + disp; keep it */
		return put_rel32(w + in->disp_off, here + in->len,
				 (uint64_t)((int64_t)in->target + disp));
	}
	*o += n;
	return put_rel32(w + n - 4, here + n, in->target);
}

enum ut_pro_why ut_pro_relocate(const struct ut_pro_plan *p, const uint8_t *code, uint64_t addr,
				uint64_t slot, uint8_t *out, size_t *len, uint8_t *map)
{
	size_t o = 0;

	for (unsigned i = 0; i < p->nr; i++) {
		unsigned at = p->skip + p->off[i];
		struct insn in;

		if (!decode(code + at, (size_t)p->skip + p->moved - at, addr + at, &in))
			return UT_PRO_UNDECODABLE;
		if (o + 25 > UT_PRO_SLOT - 5)
			return UT_PRO_INSN;
		if (in.kind == I_PLAIN)
			in.target = addr + at + in.len; /* a rip-relative operand's base */
		map[i] = (uint8_t)o;
		if (!emit(&in, code + at, addr + at, slot, out, &o))
			return UT_PRO_REACH;
	}
	out[o] = 0xe9; /* back after the moved bytes */
	if (!put_rel32(out + o + 1, slot + o + 5, addr + p->skip + p->moved))
		return UT_PRO_REACH;
	*len = o + 5;
	return UT_PRO_OK;
}

void ut_pro_patch(const struct ut_pro_plan *p, uint64_t e, uint64_t slot, uint8_t *out)
{
	static const uint8_t nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

	memcpy(out, nop5, 5);
	out[5] = 0xe9;
	put_rel32(out + 6, e + 10, slot);
	memset(out + 10, UT_ARCH_TRAP_BYTE, p->moved - 10u);
}

void ut_pro_patch_jump(const struct ut_pro_plan *p, uint64_t e, uint64_t to, uint8_t *out)
{
	out[0] = 0xe9;
	put_rel32(out + 1, e + 5, to);
	memset(out + 5, UT_ARCH_TRAP_BYTE, p->moved - 5u);
}

/*
 * USDT probes: the window [S, S + moved) of whole instructions that holds
 * the probe's nop at @at, for a 5-byte jump at S.  S = @at first; when a
 * branch lands inside that window (the code after an `if` whose body is
 * the probe), up to a few instructions before it, whose branches then run
 * in the slot.  Each window is judged by the plan (what moves), the
 * function's own branches (none may land past S inside it) and @reject
 * (the caller's: other sites' bytes, other functions' branches).
 */
enum ut_pro_why ut_pro_plan_probe(const uint8_t *code, size_t size, uint64_t addr, uint64_t at,
				  ut_pro_reject_fn reject, void *ctx, struct ut_pro_plan *p,
				  unsigned *nop)
{
	uint32_t starts[8]; /* the last instruction boundaries before @at, a ring */
	unsigned ns = 0;
	size_t o = 0;
	enum ut_pro_why first = UT_PRO_OK;

	memset(p, 0, sizeof(*p));
	if (at < addr || at >= addr + size)
		return UT_PRO_NOFUNC;
	while (o < size && addr + o < at) {
		struct insn in;

		if (!decode_kind(code + o, size - o, addr + o, &in))
			return UT_PRO_UNDECODABLE;
		starts[ns++ % 8] = (uint32_t)o;
		o += in.len;
	}
	if (addr + o != at)
		return UT_PRO_BOUNDARY;
	for (unsigned back = 0; back <= ns && back < 8; back++) {
		uint32_t s = back ? starts[(ns - back) % 8] : (uint32_t)o;
		enum ut_pro_why why;

		if (at - (addr + s) > 10)
			break; /* the window would be mostly code before the probe */
		memset(p, 0, sizeof(*p));
		unsigned need = (unsigned)(at - addr - s) + 1; /* the nop moves too */

		p->skip = s;
		why = plan_moved(code, size, addr, p, need > UT_PRO_JUMP ? need : UT_PRO_JUMP);
		if (why == UT_PRO_OK)
			why = scan_branches(code, size, addr, addr + s + 1, addr + s + p->moved, NULL);
		if (why == UT_PRO_OK && reject)
			why = reject(ctx, addr + s, addr + s + p->moved);
		if (why == UT_PRO_OK) {
			for (*nop = 0; p->off[*nop] != at - addr - s; ++*nop)
				;
			return UT_PRO_OK;
		}
		if (!back)
			first = why;
	}
	memset(p, 0, sizeof(*p));
	return first;
}
