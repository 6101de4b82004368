/* SPDX-License-Identifier: MIT */
/*
 * C++ names as their source spells them: "_ZN2ns3fooEi" -> "ns::foo(int)".
 * Symbol tables and trace.dat keep the names the ELF symbol table holds
 * (that is what filters match and what trace-cmd reads); printers turn the
 * mangled ones into source names unless the sym-demangle option is off.
 */
#ifndef UT_DEMANGLE_H
#define UT_DEMANGLE_H

#include <stdbool.h>

struct ut_demangler;

struct ut_demangler *ut_demangler_new(void);
void ut_demangler_free(struct ut_demangler *d);

/*
 * @name demangled when it is a mangled C++ name (Itanium ABI, "_Z..."), else
 * @name itself; never NULL for a non-NULL @name.  Results are cached by
 * content and stay valid until @d is freed.  A NULL @d returns @name.
 */
const char *ut_demangle(struct ut_demangler *d, const char *name);

/*
 * @mangled's demangling, malloc'd, or NULL if it is none (filters:
 * ut_ftable_set_demangle()).
 */
char *ut_demangle_alloc(const char *mangled);

/* Is this (printed) name a demangled function, with its parameter list? */
bool ut_demangled_has_params(const char *raw, const char *printed);

#endif
