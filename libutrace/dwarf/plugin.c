// SPDX-License-Identifier: MIT
/*
 * libutrace-dwarf.so: the DWARF reader the runtime loads when -O inlined
 * asks (libutrace/inlined.c), so that libdw and its compressors are not
 * loaded into every traced program.  It is common/inlined.c, the tools'
 * reader, behind one exported entry; everything else in it stays local.
 */
#include "common/inlined.h"

__attribute__((visibility("default"))) const struct ut_inltab *
utrace_plugin_inlined_of(const char *path);

const struct ut_inltab *utrace_plugin_inlined_of(const char *path)
{
	return ut_inlined_of(path);
}
