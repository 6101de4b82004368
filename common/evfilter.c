// SPDX-License-Identifier: MIT
/*
 * Event filters, the part the traced process needs (common/evfilter.h):
 * evaluating a compiled filter on a record, and the program's one-word
 * text that carries it there.  The parser is evfilter_parse.c (tools only).
 *
 * Evaluation runs in the runtime's SIGTRAP handler and on a USDT jump's
 * fast path (libutrace/tracers/usdt.c), where the program's vector
 * registers are live: no allocation, no lock, nothing from libc (whose
 * memcpy and memcmp use vector registers), and the runtime builds this
 * file with the hot files' flags (-mgeneral-regs-only).  The program is
 * postfix; the truth values live on a stack of bits in one word (at most
 * UT_EVF_MAX_PREDS of them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/evfilter_prog.h"
#include "common/glob.h"

/* @size little-endian bytes at @p (no memcpy: see above). */
static uint64_t bytes_le(const uint8_t *p, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* Whether @k bytes at @a and @b are the same (no memcmp: see above). */
static bool same(const char *a, const char *b, size_t k)
{
	for (size_t i = 0; i < k; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* The @size-byte integer at @off of @rec (0 beyond @len), sign-extended if @sgn. */
static uint64_t load(const uint8_t *rec, size_t len, unsigned off, unsigned size, bool sgn)
{
	uint64_t v;
	unsigned bits = size * 8;

	if (!size || size > 8 || off + size > len)
		return 0; /* a 0-byte field (a damaged program word) holds nothing */
	v = bytes_le(rec + off, size); /* the low bytes */
	if (bits < 64 && sgn && (v >> (bits - 1)) & 1)
		v |= ~0ULL << bits;
	return v;
}

/* The operand as the field's type sees it (the kernel casts it to the field's type). */
static uint64_t as_type(uint64_t v, unsigned size, bool sgn)
{
	unsigned bits = size * 8;

	if (bits >= 64)
		return v;
	if (!bits)
		return 0; /* a 0-byte operand (a damaged program word) */
	v &= (1ULL << bits) - 1;
	if (sgn && (v >> (bits - 1)) & 1)
		v |= ~0ULL << bits;
	return v;
}

static bool cmp_num(const struct ut_evf_op *o, uint64_t a)
{
	uint64_t b = as_type(o->val, o->size, o->is_signed);
	int c = o->is_signed ? ((int64_t)a > (int64_t)b) - ((int64_t)a < (int64_t)b)
			     : (a > b) - (a < b);

	switch (o->cmp) {
	case UT_EVF_EQ: return c == 0;
	case UT_EVF_NE: return c != 0;
	case UT_EVF_LT: return c < 0;
	case UT_EVF_LE: return c <= 0;
	case UT_EVF_GT: return c > 0;
	case UT_EVF_GE: return c >= 0;
	case UT_EVF_BAND: return (a & b) != 0;
	default: return false;
	}
}

/* One character class "[...]" at @p (after the '['): whether @c is in it; *@end past the ']'. */
static bool in_class(const char *p, const char *pe, unsigned char c, const char **end)
{
	bool neg = p < pe && (*p == '!' || *p == '^'), hit = false;
	const char *q = p + neg;

	for (bool first = true; q < pe && (first || *q != ']'); first = false) {
		unsigned char lo = (unsigned char)*q++, hi = lo;

		if (q + 1 < pe && *q == '-' && q[1] != ']') {
			hi = (unsigned char)q[1];
			q += 2;
		}
		hit |= c >= lo && c <= hi;
	}
	if (q >= pe) { /* no ']': a literal '[' */
		*end = NULL;
		return false;
	}
	*end = q + 1;
	return hit != neg;
}

/* The pattern item at *@pp (?, [...], \x or a byte) against @c; *@pp past the item. */
static bool glob_one(const char **pp, const char *pe, unsigned char c)
{
	const char *p = *pp, *end = NULL;
	bool hit;

	if (*p == '?') {
		*pp = p + 1;
		return true;
	}
	if (*p == '[') {
		hit = in_class(p + 1, pe, c, &end);
		*pp = end ? end : p + 1;
		return end ? hit : c == '[';
	}
	if (*p == '\\' && p + 1 < pe) {
		*pp = p + 2;
		return c == (unsigned char)p[1];
	}
	*pp = p + 1;
	return c == (unsigned char)*p;
}

/* Shell glob @p (@pn bytes) over @s (@sn bytes): backtracks to the last star. */
static bool glob_n(const char *p, size_t pn, const char *s, size_t sn)
{
	const char *pe = p + pn, *se = s + sn, *star = NULL, *resume = NULL;

	while (s < se) {
		const char *q = p;

		if (p < pe && *p == '*') {
			star = ++p;
			resume = s;
			continue;
		}
		if (p < pe && glob_one(&q, pe, (unsigned char)*s)) {
			p = q;
			s++;
			continue;
		}
		if (!star)
			return false;
		p = star;
		s = ++resume;
	}
	while (p < pe && *p == '*')
		p++;
	return p == pe;
}

/* The string @s (@n bytes) against the predicate's search text. */
static bool str_matches(const struct ut_evf_op *o, const char *s, size_t n)
{
	size_t k = o->slen;
	bool hit = false;

	switch (o->gtype) {
	case UT_GLOB_EXACT: hit = n == k && same(s, o->str, k); break;
	case UT_GLOB_PREFIX: hit = n >= k && same(s, o->str, k); break;
	case UT_GLOB_SUFFIX: hit = n >= k && same(s + n - k, o->str, k); break;
	case UT_GLOB_SUBSTR:
		for (size_t i = 0; !hit && i + k <= n; i++)
			hit = same(s + i, o->str, k);
		break;
	default: hit = glob_n(o->str, k, s, n); break;
	}
	return hit != (o->negate != 0);
}

/* The bytes of the predicate's string field in @rec, up to its NUL: *@s, the count. */
static size_t field_str(const struct ut_evf_op *o, const uint8_t *rec, size_t len,
			const struct ut_evf_ctx *ctx, const char **s)
{
	size_t off = o->offset, room = o->size, n = 0;
	uint32_t loc;

	*s = "";
	if (o->kind == UT_EVF_COMM) {
		if (ctx && ctx->comm)
			*s = ctx->comm;
		while (n < 16 && (*s)[n])
			n++;
		return n;
	}
	if (o->kind == UT_EVF_STRLOC) {
		if (off + 4 > len)
			return 0;
		loc = (uint32_t)bytes_le(rec + off, 4);
		off = loc & 0xffff;
		room = loc >> 16;
	}
	if (off >= len)
		return 0;
	if (room > len - off)
		room = len - off;
	*s = (const char *)rec + off;
	while (n < room && (*s)[n])
		n++;
	return n;
}

static bool pred(const struct ut_evf_op *o, const uint8_t *rec, size_t len,
		 const struct ut_evf_ctx *ctx)
{
	const char *s;
	size_t n;

	switch (o->kind) {
	case UT_EVF_NUM:
		return cmp_num(o, load(rec, len, o->offset, o->size, o->is_signed));
	case UT_EVF_CPU:
		return cmp_num(o, ctx ? ctx->cpu : 0);
	default:
		n = field_str(o, rec, len, ctx, &s);
		return str_matches(o, s, n);
	}
}

bool ut_evf_match(const struct ut_evf *f, const void *rec, size_t len,
		  const struct ut_evf_ctx *ctx)
{
	uint64_t st = 0; /* bit 0: the top of the stack */

	if (!f)
		return true;
	for (uint32_t i = 0; i < f->n; i++) {
		const struct ut_evf_op *o = &f->op[i];
		uint64_t top = st & 1;

		switch (o->code) {
		case UT_EVF_PRED: st = st << 1 | pred(o, rec, len, ctx); break;
		case UT_EVF_NOT: st ^= 1; break;
		case UT_EVF_AND: st = (st >> 1) & (~1ULL | top); break;
		case UT_EVF_OR: st = (st >> 1) | top; break;
		default: return true;
		}
	}
	return st & 1;
}

unsigned ut_evf_uses(const struct ut_evf *f)
{
	return f ? f->uses : 0;
}

void ut_evf_free(struct ut_evf *f)
{
	free(f);
}

/*
 * The word: "evf1" then one item per operation, each ";CODE,CMP,KIND,SIZE,
 * SIGNED,GTYPE,NEGATE,OFFSET,VAL,HEX" in hex, HEX the search text's bytes.
 */
char *ut_evf_encode(const struct ut_evf *f)
{
	size_t cap = 8 + (size_t)f->n * (64 + 2 * (UT_EVF_MAX_STR + 1)), n;
	char *w = malloc(cap);

	if (!w)
		return NULL;
	n = (size_t)snprintf(w, cap, "evf1");
	for (uint32_t i = 0; i < f->n; i++) {
		const struct ut_evf_op *o = &f->op[i];

		n += (size_t)snprintf(w + n, cap - n, ";%x,%x,%x,%x,%x,%x,%x,%x,%llx,", o->code,
				      o->cmp, o->kind, o->size, o->is_signed, o->gtype, o->negate,
				      o->offset, (unsigned long long)o->val);
		for (unsigned k = 0; k < o->slen; k++)
			n += (size_t)snprintf(w + n, cap - n, "%02x", (unsigned char)o->str[k]);
	}
	return w;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One item of the word at *@p (after its ';') into @o; *@p past it.  Return: 0 or -EINVAL. */
static int decode_op(const char **p, const char *end, struct ut_evf_op *o)
{
	unsigned long long v[9];
	const char *s = *p;
	char *e;

	for (int i = 0; i < 9; i++) {
		if (s >= end || *s < '0' || (*s > '9' && (*s < 'a' || *s > 'f')))
			return -EINVAL;
		v[i] = strtoull(s, &e, 16);
		if (e >= end || *e != ',')
			return -EINVAL;
		s = e + 1;
	}
	if (!v[0] || v[0] > UT_EVF_NOT || v[1] > UT_EVF_GLOB || v[2] > UT_EVF_CPU || v[3] > 255 ||
	    v[4] > 1 || v[5] > UT_GLOB_FULL || v[6] > 1 || v[7] > 0xffff)
		return -EINVAL;
	o->code = (uint8_t)v[0], o->cmp = (uint8_t)v[1], o->kind = (uint8_t)v[2];
	o->size = (uint8_t)v[3], o->is_signed = (uint8_t)v[4], o->gtype = (uint8_t)v[5];
	o->negate = (uint8_t)v[6], o->offset = (uint16_t)v[7], o->val = v[8];
	if (o->code == UT_EVF_PRED && o->kind == UT_EVF_NUM && o->size != 1 && o->size != 2 &&
	    o->size != 4 && o->size != 8)
		return -EINVAL;
	for (o->slen = 0; s + 1 < end && *s != ';'; s += 2) {
		int hi = hexval(s[0]), lo = hexval(s[1]);

		if (o->slen >= UT_EVF_MAX_STR || hi < 0 || lo < 0)
			return -EINVAL;
		o->str[o->slen++] = (char)(hi << 4 | lo);
	}
	if (s < end && *s != ';')
		return -EINVAL;
	o->str[o->slen] = '\0';
	*p = s;
	return 0;
}

/* Whether the program leaves exactly one value and never pops an empty stack. */
static bool well_formed(const struct ut_evf *f)
{
	int depth = 0;

	for (uint32_t i = 0; i < f->n; i++) {
		uint8_t c = f->op[i].code;

		depth += c == UT_EVF_PRED ? 1 : c == UT_EVF_NOT ? 0 : -1;
		if (depth < 1 || depth > 64)
			return false;
	}
	return depth == 1;
}

int ut_evf_decode(const char *word, size_t len, struct ut_evf **out)
{
	const char *p = word, *end = word + len;
	size_t n = 0;
	struct ut_evf *f;

	*out = NULL;
	if (len < 4 || memcmp(word, "evf1", 4) != 0)
		return -EINVAL;
	for (const char *q = word; q < end; q++)
		n += *q == ';';
	if (!n || n > (size_t)4 * UT_EVF_MAX_PREDS)
		return -EINVAL;
	f = calloc(1, sizeof(*f) + n * sizeof(f->op[0]));
	if (!f)
		return -ENOMEM;
	for (p += 4; p < end; f->n++) {
		if (*p++ != ';' || f->n >= n) {
			free(f);
			return -EINVAL;
		}
		if (decode_op(&p, end, &f->op[f->n])) {
			free(f);
			return -EINVAL;
		}
		if (f->op[f->n].kind == UT_EVF_COMM && f->op[f->n].code == UT_EVF_PRED)
			f->uses |= UT_EVF_USES_COMM;
		if (f->op[f->n].kind == UT_EVF_CPU && f->op[f->n].code == UT_EVF_PRED)
			f->uses |= UT_EVF_USES_CPU;
	}
	if (!well_formed(f)) {
		free(f);
		return -EINVAL;
	}
	*out = f;
	return 0;
}
