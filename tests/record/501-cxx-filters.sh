#!/bin/bash
# Filters name C++ functions as a C++ user writes them: a bare name selects
# every overload, a template's name every instance, 'Class::*' every
# member, a parameter list one overload; the mangled name still works, and
# so does any variant of a constructor (C1/C2, one function).  `list -f`
# lists demangled names (-O nosym-demangle: the symbol table's), the
# profiler's Function column fits the longest name, and an error for a word
# that cannot be meant as written says how to write it.
. "$(dirname "$0")/../lib/common.sh"

# pick STYLE WORDS...: the functions that -l WORDS selects, one a line
pick() {
	local s=$1
	shift
	local args=() w
	for w in "$@"; do args+=(-l "$w"); done
	record p.dat -p function "${args[@]}" -- "$(prog cxx_names "$s")" ||
		{ fail "$s: -l $*: $(cat p.dat.err)"; return; }
	report p.dat | funcs | sed -E 's/ <-.*//' | sort -u
}

one() {
	local s=$1
	{
		echo "== geo::scale"; pick "$s" geo::scale
		echo "== geo::twice"; pick "$s" geo::twice
		echo "== geo::twice<int>"; pick "$s" 'geo::twice<int>'
		echo "== geo::Point::*"; pick "$s" 'geo::Point::*'
		echo "== *::norm"; pick "$s" '*::norm'
		echo "== geo::scale(double)"; pick "$s" 'geo::scale(double)'
		echo "== norm() const"; pick "$s" 'geo::Point::norm() const'
		echo "== operator+"; pick "$s" 'geo::Point::operator+'
		echo "== catcher"; pick "$s" catcher
		echo "== C2 names the constructor"; pick "$s" _ZN3geo5PointC2Eii
		echo "== mangled"; pick "$s" '_ZN3geo5scale*'
		echo "== geo::* !geo::scale !*::Point"; pick "$s" 'geo::* !geo::scale !*::Point'
	} >picks.txt
	expect "$s: filters by C++ names" picks.txt <<'EOF'
== geo::scale
geo::scale(double)
geo::scale(int)
== geo::twice
double geo::twice<double>(double)
int geo::twice<int>(int)
== geo::twice<int>
int geo::twice<int>(int)
== geo::Point::*
geo::Point::Point(int, int)
geo::Point::norm() const
geo::Point::operator+(geo::Point const&) const
== *::norm
geo::Point::norm() const
== geo::scale(double)
geo::scale(double)
== norm() const
geo::Point::norm() const
== operator+
geo::Point::operator+(geo::Point const&) const
== catcher
catcher()
== C2 names the constructor
geo::Point::Point(int, int)
== mangled
geo::scale(double)
geo::scale(int)
== geo::* !geo::scale !*::Point
double geo::twice<double>(double)
geo::Point::norm() const
geo::Point::operator+(geo::Point const&) const
int geo::twice<int>(int)
EOF
}
for_styles one

P=$(prog cxx_names gcc-pfe)
"$UTRACE" list -f "$P" | sort >l.txt
expect "list -f: demangled" l.txt <<'EOF'
catcher()
double geo::twice<double>(double)
geo::Point::Point(int, int)
geo::Point::norm() const
geo::Point::operator+(geo::Point const&) const
geo::scale(double)
geo::scale(int)
int geo::twice<int>(int)
main
EOF
"$UTRACE" list -O nosym-demangle -f "$P" | grep -c '^_Z' >l.txt
expect "list -f -O nosym-demangle: the symbol table's" l.txt <<<"8"

# graph filters and notrace take them too
record g.dat -p function_graph -g 'geo::twice<double>' -n 'geo::scale(double)' -- "$P" ||
	fail "record -g: $(cat g.dat.err)"
report g.dat | events | sed -E 's/^[^|]*\| +//' >g.txt
expect "-g and -n by C++ names" g.txt <<'EOF'
double geo::twice<double>(double);
EOF

# errors that say how to write the word
"$UTRACE" record -l 'geo::Point::operator[]' -- "$P" >/dev/null 2>e.txt && fail "operator[] accepted"
sed -E 's/ of [^;]*;/ of PROG;/' e.txt >e2.txt
expect "operator[]: how to write it" e2.txt <<'EOF'
utrace: set_ftrace_filter: 'geo::Point::operator[]' matches no traceable function of PROG; '[' starts a glob class: write operator\[\] (or operator?]) for the subscript operator
EOF
"$UTRACE" record -l 'int geo::twice<int>(int)' -- "$P" >/dev/null 2>e.txt && fail "return type accepted"
sed -E 's/ of [^;]*;/ of PROG;/' e.txt >e2.txt
expect "a return type: how to write it" e2.txt <<'EOF'
utrace: set_ftrace_filter: 'int' matches no traceable function of PROG; a blank ends a word: name a C++ function without its return type (geo::twice<int>(int), geo::twice<int>, geo::twice)
EOF

"$UTRACE" record -l 'scale' -- "$P" >/dev/null 2>e.txt && fail "scale accepted"
sed -E 's/ of [^;]*;/ of PROG;/' e.txt >e2.txt
expect "a member's name alone: what would select it" e2.txt <<'EOF'
utrace: set_ftrace_filter: 'scale' matches no traceable function of PROG; C++ members are named with their class or namespace: '*::scale' selects 2
EOF

# the profiler's Function column fits C++ names
"$UTRACE" profile -o p.txt -- "$P" >p.out 2>p.err || fail "profile: $(cat p.err)"
grep -c '^  geo::Point::operator+(geo::Point const&) const  *1    ' p.txt >w.txt
expect "profile: the whole name" w.txt <<<"1"
finish
