/* SPDX-License-Identifier: MIT */
/*
 * Symbol tables: function names for addresses, from ELF files (libelf) or from
 * a trace.dat's kallsyms section.  One table may hold many modules (the
 * executable and its shared objects), each relocated by its load bias.
 */
#ifndef UT_SYMBOLS_H
#define UT_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct ut_sym {
	uint64_t addr;      /* run-time address */
	uint64_t size;      /* 0 if unknown */
	const char *name;
	const char *module; /* NULL for the main executable, else e.g. "libz" */
};

struct ut_symtab;

struct ut_symtab *ut_symtab_new(void);
void ut_symtab_free(struct ut_symtab *st);

/* Add one symbol; strings are copied.  Returns 0 or -ENOMEM. */
int ut_symtab_add(struct ut_symtab *st, uint64_t addr, uint64_t size, const char *name,
		  const char *module);

/*
 * Add every function symbol (.symtab, else .dynsym) of the ELF file at @path,
 * relocated by @bias, tagged with @module (NULL for the main program).
 * Returns the number added, or a negative errno (-ENOENT, -ENOEXEC for a file
 * that is not ELF).
 */
int ut_symtab_load_elf(struct ut_symtab *st, const char *path, uint64_t bias,
		       const char *module);

/* The same from an open file (left open), which may since have been replaced at its path. */
int ut_symtab_load_elf_fd(struct ut_symtab *st, int fd, uint64_t bias, const char *module);

/*
 * Sort, drop duplicates, and give unsized symbols the distance to the next
 * one (as kallsyms does); call after adding and before looking up.
 */
void ut_symtab_finish(struct ut_symtab *st);

/*
 * After each sized symbol that is followed by a gap (code with no symbol,
 * e.g. static functions of a stripped libc), add a marker symbol named
 * "[module]" ("[unknown]" for the program), so that an address in the gap
 * is not named after the function before it, by us or by trace-cmd (which
 * applies the nearest-symbol rule to the same table).  Sorts again.
 */
void ut_symtab_mark_gaps(struct ut_symtab *st);

/*
 * The symbol covering @addr: the one with the greatest address <= @addr (the
 * rule trace-cmd applies to kallsyms), or NULL if @addr is below them all.
 */
const struct ut_sym *ut_symtab_lookup(const struct ut_symtab *st, uint64_t addr);

size_t ut_symtab_count(const struct ut_symtab *st);
const struct ut_sym *ut_symtab_at(const struct ut_symtab *st, size_t i);

/* The module name of a shared object: its file name up to the first dot
 * ("libz.so.1.2.13" -> "libz"), as :mod: filters name it; writes at most @len bytes including the NUL. */
void ut_module_name(const char *path, char *out, size_t len);

#endif
