// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: USDT discovery (common/usdt.c) and the architecture's
 * argument parser under it (arch/x86_64/usdt_args.c).  Both read what a
 * program's file says, untrusted.  The first byte picks the input's use:
 *
 *   'a'   the rest is a note's argument descriptions ("-4@%edi 8@-16(%rbp)")
 *   else  the whole input is an ELF object whose .note.stapsdt is read
 *         (libelf from memory), every probe's arguments decoded
 *
 * Everything returned is checked for consistency and freed (leaks are
 * errors too).
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/usdt.h"

static void check_arg(const struct ut_usdt_arg *a)
{
	if (a->size != 1 && a->size != 2 && a->size != 4 && a->size != 8)
		abort();
	if (a->loc < UT_USDT_CONST || a->loc > UT_USDT_SYMADDR)
		abort();
	if (a->loc == UT_USDT_REG && a->reg > 16)
		abort();
	if (a->scale != 1 && a->scale != 2 && a->scale != 4 && a->scale != 8)
		abort();
	if (strnlen(a->sym, sizeof(a->sym)) == sizeof(a->sym))
		abort();
}

static void args(const uint8_t *data, size_t size)
{
	struct ut_usdt_arg v[UT_USDT_MAX_ARGS];
	char *s = malloc(size + 1), why[96];
	int n;

	if (!s)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	n = ut_usdt_parse_args(s, v, why, sizeof(why));
	if (n > UT_USDT_MAX_ARGS)
		abort();
	for (int i = 0; i < n; i++)
		check_arg(&v[i]);
	free(s);
}

static void object(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	struct ut_usdt_list l = {0};
	Elf *elf;

	if (!copy)
		return;
	memcpy(copy, data, size);
	elf_version(EV_CURRENT);
	elf = elf_memory(copy, size);
	if (elf && elf_kind(elf) == ELF_K_ELF && ut_usdt_read_elf(elf, &l) >= 0) {
		for (size_t i = 0; i < l.n; i++)
			for (int k = 0; k < l.v[i].nargs; k++)
				check_arg(&l.v[i].arg[k]);
	}
	ut_usdt_list_free(&l);
	if (elf)
		elf_end(elf);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && data[0] == 'a')
		args(data + 1, size - 1);
	else
		object(data, size);
	return 0;
}
