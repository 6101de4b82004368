// SPDX-License-Identifier: MIT
/*
 * libFuzzer target: DWARF as common/inlined.c reads it (the inlined
 * instances of every function), the debug info of whatever binary a user
 * points utrace at, or found for it under /usr/lib/debug: untrusted.
 *
 * The input is a list of DWARF sections, each a byte naming it (an index
 * into names[] below), a 4-byte little-endian length and its bytes; the
 * seeds are the sections of a small program compiled with gcc -g -O2, so
 * the mutations reach .debug_info (and the sections it refers to).  They are
 * wrapped in an ELF image in memory and scanned.  Whatever the bytes, the
 * scan must end without a crash, a leak or a sanitizer report, and every
 * instance it keeps must be well formed.
 */
#include <elf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/inlined.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {".debug_info",   ".debug_abbrev",      ".debug_str",
				    ".debug_line_str", ".debug_line",      ".debug_rnglists",
				    ".debug_addr",   ".debug_str_offsets", ".debug_ranges",
				    ".debug_loclists"};
#define NR_NAMES (sizeof(names) / sizeof(names[0]))
#define MAX_SECS 16

struct sec {
	const uint8_t *p;
	unsigned name;
	uint32_t len;
};

/* Split the input into sections; a record cut short keeps what it has. */
static size_t split(const uint8_t *d, size_t n, struct sec *s)
{
	size_t k = 0, at = 0;

	while (k < MAX_SECS && at + 5 <= n) {
		uint32_t len;

		memcpy(&len, d + at + 1, 4);
		s[k].name = d[at] % NR_NAMES;
		s[k].p = d + at + 5;
		s[k].len = len <= n - at - 5 ? len : (uint32_t)(n - at - 5);
		at += 5 + (size_t)s[k].len;
		k++;
	}
	return k;
}

/* An ELF64 x86-64 image: header, section contents, .shstrtab, section headers. */
static uint8_t *image(const struct sec *s, size_t k, size_t *len)
{
	size_t strsz = 1 + strlen(".shstrtab") + 1, off = sizeof(Elf64_Ehdr), at;
	Elf64_Ehdr eh = {0};
	Elf64_Shdr sh[MAX_SECS + 2] = {{0}};
	uint8_t *img;

	for (size_t i = 0; i < k; i++)
		strsz += strlen(names[s[i].name]) + 1;
	for (size_t i = 0; i < k; i++)
		off += s[i].len;
	*len = off + strsz + 7 + (k + 2) * sizeof(Elf64_Shdr);
	img = calloc(1, *len);
	if (!img)
		return NULL;
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(Elf64_Ehdr);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)(k + 2);
	eh.e_shstrndx = (uint16_t)(k + 1);
	at = sizeof(Elf64_Ehdr);
	size_t name_at = 1 + strlen(".shstrtab") + 1;
	uint8_t *strtab = img + off;

	/* the names are NUL-separated: calloc left the zeros between them */
	memcpy(strtab + 1, ".shstrtab", sizeof(".shstrtab"));
	for (size_t i = 0; i < k; i++) {
		memcpy(img + at, s[i].p, s[i].len);
		memcpy(strtab + name_at, names[s[i].name], strlen(names[s[i].name]) + 1);
		sh[i + 1] = (Elf64_Shdr){.sh_name = (uint32_t)name_at, .sh_type = SHT_PROGBITS,
					 .sh_offset = at, .sh_size = s[i].len, .sh_addralign = 1};
		name_at += strlen(names[s[i].name]) + 1;
		at += s[i].len;
	}
	sh[k + 1] = (Elf64_Shdr){.sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = off,
				 .sh_size = strsz, .sh_addralign = 1};
	eh.e_shoff = (off + strsz + 7) & ~(size_t)7;
	memcpy(img, &eh, sizeof(eh));
	memcpy(img + eh.e_shoff, sh, (k + 2) * sizeof(Elf64_Shdr));
	return img;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sec s[MAX_SECS];
	struct ut_inltab t = {.fd = -1};
	size_t k = split(data, size, s), len;
	uint8_t *img = image(s, k, &len);
	Elf *elf;

	if (!img)
		return 0;
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)img, len);
	if (elf && ut_inlined_scan_elf(&t, elf) == 0) {
		for (size_t i = 0; i < t.n; i++) {
			const struct ut_inl *v = &t.v[i];

			/* kept instances are whole: names, and code inside its extent */
			if (!v->func || !v->in || (v->nr_ranges && v->lo > v->hi) ||
			    (i && strcmp(t.v[i - 1].func, v->func) > 0))
				abort();
		}
	}
	ut_inlined_release(&t);
	if (elf)
		elf_end(elf);
	free(img);
	return 0;
}
