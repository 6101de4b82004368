/* SPDX-License-Identifier: MIT */
/*
 * Symbol tables: function names for addresses, from ELF files (libelf) or from
 * a trace.dat's kallsyms section.  One table may hold many modules (the
 * executable and its shared objects), each relocated by its load bias.
 */
#ifndef UT_SYMBOLS_H
#define UT_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ut_sym {
	uint64_t addr;      /* run-time address */
	uint64_t size;      /* 0 if unknown */
	const char *name;
	const char *module; /* NULL for the main executable, else e.g. "libz" */
};

/* A symbol's binding (ut_symtab_add_bound), in the order a name is preferred among aliases. */
enum ut_sym_bind { UT_SYM_GLOBAL, UT_SYM_WEAK, UT_SYM_LOCAL };

struct ut_symtab;

struct ut_symtab *ut_symtab_new(void);
void ut_symtab_free(struct ut_symtab *st);

/* Add one symbol (global); strings are copied.  Returns 0 or -ENOMEM. */
int ut_symtab_add(struct ut_symtab *st, uint64_t addr, uint64_t size, const char *name,
		  const char *module);

/* The same with the symbol's binding (enum ut_sym_bind). */
int ut_symtab_add_bound(struct ut_symtab *st, uint64_t addr, uint64_t size, const char *name,
			const char *module, unsigned bind);

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
 * Sort, keep one symbol per address, and give unsized symbols the distance
 * to the next one (as kallsyms does); call after adding and before looking
 * up.  Of the names at one address (aliases: `alias` attributes, weak
 * aliases, C1/C2 constructors, functions folded by identical code folding)
 * the table keeps the one a user knows the function by, the others go to
 * its alias list (ut_symtab_aliases).  The preferred name: one with a size
 * (not a label); the fewest leading underscores (malloc over
 * __libc_malloc, open over __open: the kernel's kallsyms rule); global over
 * weak over local; the shortest; the first in byte order.  The kernel's
 * kallsyms puts weak symbols last before counting underscores; user-space
 * C libraries make the public name weak (open) and the internal one strong
 * (__open), so here the underscores come first.
 */
void ut_symtab_finish(struct ut_symtab *st);

/*
 * The other names of the function at @addr (after ut_symtab_finish), in
 * the order of preference: *@n of them at the returned address (NULL, 0:
 * none).  Valid until the table changes.
 */
const struct ut_sym *ut_symtab_aliases(const struct ut_symtab *st, uint64_t addr, size_t *n);

/*
 * The same for callers that ask in increasing order of @addr (naming
 * sites): *@cursor, 0 at first, walks the alias list alongside instead of
 * a binary search per function.
 */
const struct ut_sym *ut_symtab_aliases_next(const struct ut_symtab *st, size_t *cursor,
					    uint64_t addr, size_t *n);

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

/* Whether the ELF file at @path has a .symtab (is not stripped); false if it cannot be read. */
bool ut_elf_has_symtab(const char *path);

/* The module name of a shared object: its file name up to the first dot
 * ("libz.so.1.2.13" -> "libz"), as :mod: filters name it; writes at most @len bytes including the NUL. */
void ut_module_name(const char *path, char *out, size_t len);

#endif
