/* SPDX-License-Identifier: MIT */
/*
 * USDT probes (<sys/sdt.h>, DTRACE_PROBE / STAP_PROBE): what the compiler
 * left in an object's `.note.stapsdt` notes, and each argument's location
 * as a small typed fetch program.
 *
 * A probe is a 1-byte nop in the code and a note holding its address, the
 * address of `.stapsdt.base` as the linker saw it (a prelinked object moved
 * since: the section's address now minus it is added to every address),
 * the address of its semaphore (an unsigned short the code tests through
 * PROBE_ENABLED(); 0: none), its provider, its name and the argument
 * descriptions, one per argument separated by blanks, each
 * `[-]SIZE@OPERAND` in the assembler's syntax (x86-64: `-4@%edi`,
 * `8@-16(%rbp)`, `4@$5`, `8@foo(%rip)`, `-4@8(%rax,%rdx,4)`).  The operand
 * syntax is the architecture's: arch/<arch>/usdt_args.c parses it.
 */
#ifndef UT_USDT_H
#define UT_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* sys/sdt.h takes at most 12 arguments. */
#define UT_USDT_MAX_ARGS 12
#define UT_USDT_NO_REG 0xff
/* An argument's name from a description (common/usdt_desc.h), NUL included. */
#define UT_USDT_NAME_MAX 32

enum ut_usdt_loc {
	UT_USDT_CONST = 1,  /* the value is @val */
	UT_USDT_REG,        /* register @reg (bits @reg_shift.. of it, @reg_size bytes) */
	UT_USDT_MEM,        /* memory at @val + @reg + @index * @scale (either may be none) */
	UT_USDT_STATIC,     /* memory at link address @val, moved with the object */
	UT_USDT_SYMADDR,    /* the value is link address @val, moved with the object */
};

/* One argument: where its value lives and how many bytes of it, signed or not. */
struct ut_usdt_arg {
	uint8_t loc;        /* enum ut_usdt_loc */
	uint8_t size;       /* 1, 2, 4 or 8 bytes */
	uint8_t is_signed;
	uint8_t reg;        /* the architecture's register number, or UT_USDT_NO_REG */
	uint8_t reg_size;   /* the register's width in bytes as named (%al: 1, %eax: 4) */
	uint8_t reg_shift;  /* bits below the named part (%ah: 8) */
	uint8_t index;      /* index register, or UT_USDT_NO_REG */
	uint8_t scale;      /* 1, 2, 4, 8 */
	int64_t val;        /* constant, displacement or link address */
	char sym[64];       /* STATIC / SYMADDR before the symbol is resolved: its name */
	char name[UT_USDT_NAME_MAX]; /* from a description, "" if none (argN) */
	uint8_t is_string;  /* a description says it points to a string */
};

/*
 * Parse one argument description (@spec, @len bytes: `-4@%edi`) into @a.
 * A symbol operand (`foo+8(%rip)`, `$foo`) leaves its name in a->sym and
 * its offset in a->val, for the caller to resolve.  Return: 0, or -EINVAL
 * with the reason in @why.  (arch/<arch>/usdt_args.c)
 */
int ut_usdt_parse_arg(const char *spec, size_t len, struct ut_usdt_arg *a, char *why,
		      size_t whylen);

/* The name of the architecture's register @reg at its full width ("rdi"), or "?". */
const char *ut_usdt_reg_name(unsigned reg);

/*
 * Parse the blank-separated descriptions of @args into @v (at most
 * UT_USDT_MAX_ARGS).  Return: how many, or -EINVAL with the reason in @why
 * (which argument, what is wrong).
 */
int ut_usdt_parse_args(const char *args, struct ut_usdt_arg *v, char *why, size_t whylen);

/* One probe of an object, addresses as linked (prelink adjustment applied). */
struct ut_usdt_probe {
	char *provider, *name;
	char *args;         /* the note's argument descriptions, as written */
	uint64_t pc;        /* the probe's nop */
	uint64_t semaphore; /* 0: none */
	int nargs;          /* < 0: the arguments could not be decoded (see why) */
	struct ut_usdt_arg arg[UT_USDT_MAX_ARGS];
	char why[96];       /* why the probe cannot be enabled, "" if it can */
};

struct ut_usdt_list {
	struct ut_usdt_probe *v;
	size_t n;
};

struct Elf;
/*
 * Append to @l the probes of the ELF object @elf (a file opened with
 * libelf): its `.note.stapsdt` notes, adjusted by `.stapsdt.base`, symbols
 * of the argument operands resolved through `.symtab`/`.dynsym`.  A note
 * that is malformed is skipped; a probe whose arguments cannot be decoded
 * is kept with nargs < 0 and the reason.  Return: how many probes were
 * added, or -ENOMEM.
 */
int ut_usdt_read_elf(struct Elf *elf, struct ut_usdt_list *l);

/* The same for the file at @path.  Return: probes added, or a negative errno. */
int ut_usdt_read_file(const char *path, struct ut_usdt_list *l);

void ut_usdt_list_free(struct ut_usdt_list *l);

/* `4@%edi` style text of one parsed argument's type: "s32", "u8", ... */
const char *ut_usdt_type_name(const struct ut_usdt_arg *a);

/*
 * Whether one set_event word (@len bytes, without its '!') names
 * provider:name: `provider:name` with globs in either part, a bare word
 * naming an event of any provider or a whole provider (set_event's
 * `sched`), `provider:` (every probe of it).
 */
bool ut_usdt_word_matches(const char *w, size_t len, const char *provider, const char *name);

/* Whether the words of @events select provider:name: the last word naming it wins, `!word` removes. */
bool ut_usdt_selected(const char *events, const char *provider, const char *name);

#endif
