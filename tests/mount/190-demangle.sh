#!/bin/bash
# C++ names in the mount: trace prints them demangled, options/sym-demangle
# (utrace's own, listed in trace_options) turns that off; set_ftrace_filter
# and available_filter_functions use the symbol table's (mangled) names.
. "$(dirname "$0")/mount.lib"

do_mount
cd "$MNT" || exit 1
expect_eq "option file" 1 "$(cat options/sym-demangle)"
check "trace_options lists it" grep -qx sym-demangle trace_options
echo '_Z7catcherv _ZN3geo5scaleEi' >set_ftrace_filter || fail "filter on mangled names"
echo function >current_tracer
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog cxx_names gcc-pfe)" >"$TOP/prog.out" 2>"$TOP/prog.err" ||
	fail "program: $(cat "$TOP/prog.err")"
funcs <trace >"$TOP/t.txt"
expect "demangled" "$TOP/t.txt" <<'EOF2'
geo::scale(int) <-int geo::twice<int>(int)
geo::scale(int) <-int geo::twice<int>(int)
catcher() <-main
EOF2
echo 0 >options/sym-demangle
check "trace_options says so" grep -qx nosym-demangle trace_options
funcs <trace >"$TOP/t.txt"
expect "raw names" "$TOP/t.txt" <<'EOF2'
_ZN3geo5scaleEi <-_ZN3geo5twiceIiEET_S1_
_ZN3geo5scaleEi <-_ZN3geo5twiceIiEET_S1_
_Z7catcherv <-main
EOF2
echo sym-demangle >trace_options
expect_eq "back on" 1 "$(cat options/sym-demangle)"
cd "$TOP" || exit 1
finish
