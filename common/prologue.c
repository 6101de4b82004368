// SPDX-License-Identifier: MIT
/* Patched prologues: the portable part (common/prologue.h). */
#include "common/prologue.h"

#include <string.h>

#include "common/symbols.h"

const char *ut_pro_why_text(enum ut_pro_why why)
{
	static const char *const text[UT_PRO_NR] = {
		[UT_PRO_OK] = "patchable",
		[UT_PRO_SHORT] = "shorter than the 10 bytes a patch needs",
		[UT_PRO_UNDECODABLE] = "an instruction the decoder does not know",
		[UT_PRO_RETURN] = "returns or jumps away within its first 10 bytes",
		[UT_PRO_TARGET] = "a branch of its own lands in its first 10 bytes",
		[UT_PRO_JUMPTABLE] = "an indirect jump (jump table?) may land in its first 10 bytes",
		[UT_PRO_INSN] = "a call, system call or loop among its first 10 bytes",
		[UT_PRO_REACH] = "an operand out of reach of the out-of-line slot",
		[UT_PRO_MODULE] = "its object is not patched (dynamic loader, C runtime)",
		[UT_PRO_NOSIZE] = "its size is unknown",
		[UT_PRO_ENTRY] = "an entry point not reached by a call",
		[UT_PRO_CRT] = "C runtime start-up code, not the program's",
		[UT_PRO_INSTALL] = "the patch could not be installed",
	};

	return why < UT_PRO_NR && text[why] ? text[why] : "unknown";
}

/*
 * The loader and the C runtime: their entry points are not all reached by
 * calls (_start, signal returns, the lazy binder, setjmp and vfork return
 * twice), and the tracer runs on them, as on the libraries the runtime
 * itself uses (libelf and its compressors, capstone).  Matched by file name.
 */
bool ut_pro_module_refused(const char *path)
{
	static const char *const names[] = {"ld-linux", "libc.so", "libc-", "libpthread",
					    "libdl.so", "libgcc_s", "libstdc++", "libutrace",
					    "libcapstone", "libelf", "libz.so", "libzstd"};
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strncmp(base, names[i], strlen(names[i])))
			return true;
	return false;
}

/* The start files' functions (crt1.o, crti.o, crtbegin.o), linked into every program. */
static bool crt_function(const char *name)
{
	static const char *const crt[] = {"_init", "_fini", "deregister_tm_clones",
					  "register_tm_clones", "__do_global_dtors_aux", "frame_dummy",
					  "__libc_csu_init", "__libc_csu_fini", "_dl_relocate_static_pie"};

	for (size_t i = 0; i < sizeof(crt) / sizeof(crt[0]); i++)
		if (!strcmp(name, crt[i]))
			return true;
	return false;
}

/* Is a site of the sorted @sites inside [lo, hi)? */
static bool has_site(const uint64_t *sites, size_t n, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = n;

	while (a < b) {
		size_t mid = a + (b - a) / 2;

		if (sites[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < n && sites[a] < hi;
}

void ut_pro_walk(const struct ut_symtab *st, const uint64_t *sites, size_t nsites,
		 ut_pro_code_fn code, void *code_ctx, ut_pro_found_fn cb, void *cb_ctx)
{
	for (size_t i = 0; i < ut_symtab_count(st); i++) {
		const struct ut_sym *s = ut_symtab_at(st, i);
		struct ut_pro_plan plan;
		enum ut_pro_why why;
		const uint8_t *bytes;

		if (has_site(sites, nsites, s->addr, s->addr + (s->size ? s->size : 1)))
			continue;
		if (strstr(s->name, ".cold"))
			continue; /* a part of another function, entered by a jump */
		memset(&plan, 0, sizeof(plan));
		bytes = s->size ? code(code_ctx, s->addr, s->size) : NULL;
		if (!strcmp(s->name, "_start"))
			why = UT_PRO_ENTRY;
		else if (crt_function(s->name))
			why = UT_PRO_CRT;
		else if (!s->size)
			why = UT_PRO_NOSIZE;
		else if (!bytes)
			continue; /* not code we can see (an IFUNC's data, a PLT) */
		else
			why = ut_pro_plan(bytes, s->size, s->addr, &plan);
		cb(cb_ctx, s, why, &plan);
	}
}
