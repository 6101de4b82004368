#!/bin/bash
# C++ names in the mount's function lists: set_ftrace_filter takes them
# demangled ('geo::scale' every overload, 'geo::Point::*' every member) or
# mangled, and lists what it selected, like available_filter_functions,
# demangled (options/sym-demangle 0: as the symbol table holds them);
# trace_stat keeps the kernel's 30-character Function column.
. "$(dirname "$0")/mount.lib"

do_mount
cd "$MNT" || exit 1
P=$(prog cxx_names gcc-pfe)
echo 'geo::scale geo::Point::*' >set_ftrace_filter || fail "filter on demangled names"
echo '_Z7catcherv' >>set_ftrace_filter || fail "filter on a mangled name"
echo function >current_tracer
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >"$TOP/prog.out" 2>"$TOP/prog.err" ||
	fail "program: $(cat "$TOP/prog.err")"
pid=$(ls processes | head -n 1)
funcs <trace | sed 's/ <-.*//' | sort | uniq -c >"$TOP/t.txt"
expect "traced" "$TOP/t.txt" <<'EOF2'
      1 catcher()
      2 geo::Point::Point(int, int)
      1 geo::Point::norm() const
      1 geo::Point::operator+(geo::Point const&) const
      2 geo::scale(double)
      2 geo::scale(int)
EOF2
sort "processes/$pid/set_ftrace_filter" >"$TOP/f.txt"
expect "set_ftrace_filter lists them demangled" "$TOP/f.txt" <<'EOF2'
catcher()
geo::Point::Point(int, int)
geo::Point::norm() const
geo::Point::operator+(geo::Point const&) const
geo::scale(double)
geo::scale(int)
EOF2
sort "processes/$pid/available_filter_functions" >"$TOP/a.txt"
expect "available_filter_functions demangled" "$TOP/a.txt" <<'EOF2'
catcher()
double geo::twice<double>(double)
geo::Point::Point(int, int)
geo::Point::norm() const
geo::Point::operator+(geo::Point const&) const
geo::scale(double)
geo::scale(int)
int geo::twice<int>(int)
main
EOF2
echo 0 >"processes/$pid/options/sym-demangle"
grep -c '^_Z' "processes/$pid/available_filter_functions" >"$TOP/r.txt"
expect "processes/PID/options/sym-demangle 0: the symbol table's names" "$TOP/r.txt" <<<"8"
echo 1 >"processes/$pid/options/sym-demangle"

# the profiler's table keeps the kernel's layout (names cut at 30)
echo nop >current_tracer
echo >set_ftrace_filter
echo 1 >function_profile_enabled
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >"$TOP/prog.out" 2>"$TOP/prog.err" ||
	fail "program: $(cat "$TOP/prog.err")"
grep -c '^  geo::Point::operator+(geo::Poi  ' trace_stat/function >"$TOP/s.txt"
expect "trace_stat: 30 columns" "$TOP/s.txt" <<<"1"
echo 0 >function_profile_enabled
cd "$TOP" || exit 1
finish
