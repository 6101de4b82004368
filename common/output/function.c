// SPDX-License-Identifier: MIT
/*
 * Bodies of the events the function and nop tracers show: function calls
 * (SPEC §12), trace_marker writes (§7) and stack traces (§8), in each
 * output mode (normal, raw, hex, bin, fields).
 */
#include <inttypes.h>
#include <string.h>

#include "common/output/output.h"
#include "common/procevents.h"
#include "common/usdt_events.h"
#include "utrace/abi.h"

/*
 * A symbol the way the kernel's %ps-style printer shows it.  Without
 * sym-offset only the name is printed, even for a shared object (the kernel
 * keeps " [module]" for sym-offset only); an unknown address prints as hex.
 */
static void print_sym_name(const struct ut_out *o, FILE *f, uint64_t addr)
{
	const struct ut_sym *sym = NULL;
	int offset = ut_out_opt(o, UT_OPT_SYM_OFFSET);

	if (o->cfg.syms)
		sym = ut_symtab_lookup(o->cfg.syms, addr);
	if (!sym || !sym->name || !*sym->name) {
		/* the two kernel paths differ: sprint_symbol() does not pad */
		fprintf(f, offset ? "0x%" PRIx64 : "0x%08" PRIx64, addr);
		return;
	}
	fputs(ut_out_sym_name(o, sym), f);
	if (!offset)
		return;
	fprintf(f, "+0x%" PRIx64 "/0x%" PRIx64, addr - sym->addr, sym->size);
	if (sym->module)
		fprintf(f, " [%s]", sym->module);
}

/**
 * ut_out_print_sym() - print an address as a symbol, honouring the options
 * @o: the formatter (sym-offset, sym-addr, symbol table)
 * @f: where to
 * @addr: the address; 0 prints "0"
 *
 * "name", "name+0xOFF/0xSIZE" with sym-offset, then " <%016lx>" with
 * sym-addr.  Shared by every event printer, function_graph included.
 */
void ut_out_print_sym(const struct ut_out *o, FILE *f, uint64_t addr)
{
	if (!addr) {
		fputc('0', f);
		return;
	}
	print_sym_name(o, f, addr);
	if (ut_out_opt(o, UT_OPT_SYM_ADDR))
		fprintf(f, " <%016" PRIx64 ">", addr);
}

/**
 * ut_out_print_hex_field() - one field of hex mode
 * @f: where to
 * @p: the value (native endian)
 * @size: its size in bytes
 *
 * The value as a big-endian hex number, one group of up to 8 bytes at a
 * time, each group followed by a space.
 */
void ut_out_print_hex_field(FILE *f, const void *p, unsigned size)
{
	const unsigned char *b = p;

	while (size) {
		unsigned n = size < 8 ? size : 8;
		unsigned i;

		/* little endian: the most significant byte comes last */
		for (i = n; i-- > 0;)
			fprintf(f, "%02x", b[i]);
		fputc(' ', f);
		b += n;
		size -= n;
	}
}

/* ---- function ---- */

/* "FUNC <-PARENT", without the newline (the function and func_repeats events share it). */
static void fn_body(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	ut_out_print_sym(o, f, ev->ip);
	/* a zero parent means "unknown": the kernel prints no arrow then */
	if (ut_out_opt(o, UT_OPT_PRINT_PARENT) && ev->parent_ip) {
		fputs(" <-", f);
		ut_out_print_sym(o, f, ev->parent_ip);
	}
}

static void fn_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	fn_body(o, f, ev);
	fputc('\n', f);
}

/* ---- func_repeats (func-no-repeats, repeats.c) ---- */

static void repeats_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	fn_body(o, f, ev);
	fprintf(f, " (repeats: %" PRIu32 ", last_ts:", ev->repeats);
	ut_out_print_ts(o, f, ev->last_ts);
	fputs(")\n", f);
}

static void repeats_raw(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	(void)o;
	fprintf(f, "%" PRIu64 " %" PRIu64 " %" PRIu32 " %" PRIu64 "\n", ev->ip, ev->parent_ip,
		ev->repeats, ev->ts - ev->last_ts);
}

static void fn_raw(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	fprintf(f, "%" PRIx64 " %" PRIx64 "\n", ev->ip, ev->parent_ip);
}

static void fn_hex(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	ut_out_print_hex_field(f, &ev->ip, sizeof(ev->ip));
	ut_out_print_hex_field(f, &ev->parent_ip, sizeof(ev->parent_ip));
}

static void fn_bin(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	fwrite(&ev->ip, sizeof(ev->ip), 1, f);
	fwrite(&ev->parent_ip, sizeof(ev->parent_ip), 1, f);
}

static void print_u64_field(FILE *f, const char *name, uint64_t v)
{
	fprintf(f, " %s=0x%" PRIx64 " (%" PRIu64 ")", name, v, v);
}

/*
 * fields=1: "function: ip=0x.. (..) parent_ip=0x.. (..)".  The kernel's
 * function event also has an empty args[] field (function argument
 * recording, off here); it is left out.
 */
static void fn_fields(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	fputs("function:", f);
	print_u64_field(f, "ip", ev->ip);
	print_u64_field(f, "parent_ip", ev->parent_ip);
	fputc('\n', f);
}

/* ---- print (trace_marker) ---- */

/* The marker text; the stored text should end in '\n', add it if not. */
static void print_text(FILE *f, const char *s)
{
	size_t len;

	if (!s)
		s = "";
	len = strlen(s);
	fputs(s, f);
	if (!len || s[len - 1] != '\n')
		fputc('\n', f);
}

/*
 * The kernel names the marker's writer: the ip of tracing_mark_write().  A
 * user-space marker has no such ip (0), so print the kernel's name for it;
 * a non-zero ip (e.g. a printk-like API) prints as its symbol.
 */
static void print_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	if (ev->ip)
		ut_out_print_sym(o, f, ev->ip);
	else
		fputs("tracing_mark_write", f);
	fputs(": ", f);
	print_text(f, ev->str);
}

static void print_raw(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	fprintf(f, "# %" PRIx64 " ", ev->ip);
	print_text(f, ev->str);
}

/* ---- kernel_stack / user_stack ---- */

static void stack_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	uint32_t i;

	fputs("<stack trace>\n", f);
	for (i = 0; i < ev->nr_callers && ev->callers; i++) {
		/* all-ones ends a short stack */
		if (ev->callers[i] == UINT64_MAX)
			break;
		fputs(" => ", f);
		ut_out_print_sym(o, f, ev->callers[i]);
		fputc('\n', f);
	}
}

/*
 * User stacks print raw addresses: " => " followed by " <%016lx>".
 * (sym-userobj's "/path[+0xOFF]" form needs the process maps; not done.)
 */
static void user_stack_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	uint32_t i;

	fputs("<user stack trace>\n", f);
	for (i = 0; i < ev->nr_callers && ev->callers; i++) {
		if (!ev->callers[i])
			break;
		fprintf(f, " =>  <%016" PRIx64 ">\n", ev->callers[i]);
	}
}

/* ---- utrace's signal_enter / signal_exit (function_graph prints marks) ---- */

static void signal_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	(void)o;
	fprintf(f, "sig=%d\n", ev->sig);
}

/* ---- utrace's funcgraph_inlined (function_graph prints a leaf line) ---- */

static void inlined_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	ut_out_print_sym(o, f, ev->ip);
	fputs("(); /* inlined */\n", f);
}

/* ---- USDT probes: the event's name and its arguments, as its print fmt ---- */

static void probe_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	char args[1024];

	(void)o;
	if (!ev->probe) { /* no format came with it: its address and raw values */
		fprintf(f, "probe_%llx: ", (unsigned long long)ev->ip);
		for (uint32_t i = 0; ev->args && i < ev->nargs; i++)
			fprintf(f, "%sarg%u=%llu", i ? " " : "", i + 1, (unsigned long long)ev->args[i]);
		fputc('\n', f);
		return;
	}
	ut_evfmt_print(args, sizeof(args), ev->probe, ev->args, ev->argbytes);
	fprintf(f, "%s: %s\n", ev->probe->name, args);
}

/* ---- process events (common/procevents.h): the name, then the text of its print fmt ---- */

static void procev_trace(struct ut_out *o, FILE *f, const struct ut_event *ev)
{
	const struct ut_procev *e = ut_procev_by_id(ev->evid);
	uint8_t rec[8 + UT_PAGE_SIZE]; /* a trace.dat's record may carry its padding too */
	char text[1200];
	size_t len = ev->raw && ev->raw_len <= UT_PAGE_SIZE ? ev->raw_len : 0;

	(void)o;
	if (!e) {
		fprintf(f, "event_%u\n", ev->evid);
		return;
	}
	/* the printer reads offsets from the record's start: the common fields first */
	memset(rec, 0, 8);
	if (len)
		memcpy(rec + 8, ev->raw, len);
	ut_procev_print(text, sizeof(text), e, rec, 8 + len);
	fprintf(f, "%s: %s\n", e->name, text);
}

static const struct ut_out_event_ops function_ops[] = {
	{
		.type = UT_EV_FUNCTION,
		.name = "function",
		.trace = fn_trace,
		.raw = fn_raw,
		.hex = fn_hex,
		.bin = fn_bin,
		.fields = fn_fields,
	},
	{
		.type = UT_EV_FUNC_REPEATS,
		.name = "func_repeats",
		.trace = repeats_trace,
		.raw = repeats_raw,
	},
	{
		.type = UT_EV_PRINT,
		.name = "print",
		.trace = print_trace,
		.raw = print_raw,
	},
	{
		.type = UT_EV_KERNEL_STACK,
		.name = "kernel_stack",
		.trace = stack_trace,
	},
	{
		.type = UT_EV_USER_STACK,
		.name = "user_stack",
		.trace = user_stack_trace,
	},
	{
		.type = UT_EV_SIGNAL_ENTER,
		.name = "signal_enter",
		.trace = signal_trace,
	},
	{
		.type = UT_EV_SIGNAL_EXIT,
		.name = "signal_exit",
		.trace = signal_trace,
	},
	{
		.type = UT_EV_PROBE,
		.name = "usdt",
		.trace = probe_trace,
	},
	{
		.type = UT_EV_FUNCGRAPH_INLINED,
		.name = "funcgraph_inlined",
		.trace = inlined_trace,
	},
	{
		.type = UT_EV_STATIC,
		.name = "event",
		.trace = procev_trace,
	},
};

/**
 * ut_out_function_ops() - the printers for an event type
 * @type: UT_EV_*
 *
 * Return: the ops, or NULL for a type this file does not know.
 */
const struct ut_out_event_ops *ut_out_function_ops(uint16_t type)
{
	size_t i;

	for (i = 0; i < sizeof(function_ops) / sizeof(function_ops[0]); i++)
		if (function_ops[i].type == type)
			return &function_ops[i];
	return NULL;
}
