#!/bin/bash
# C++ names print as the source spells them (namespaces, constructors,
# operators, overloads, templates): in the function tracer's lines and
# parents, in function_graph's calls and closing comments, in the profiler's
# table and in `utrace show`; -O nosym-demangle prints the symbol table's
# names.  Filters match the symbol table's (mangled) names, and trace.dat
# keeps them (trace-cmd report prints them as they are).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

cat >demangled.txt <<'EOF'
main <-[libc]
geo::Point::Point(int, int) <-main
geo::Point::operator+(geo::Point const&) const <-main
geo::Point::Point(int, int) <-geo::Point::operator+(geo::Point const&) const
geo::Point::norm() const <-main
int geo::twice<int>(int) <-main
geo::scale(int) <-int geo::twice<int>(int)
geo::scale(int) <-int geo::twice<int>(int)
double geo::twice<double>(double) <-main
geo::scale(double) <-double geo::twice<double>(double)
geo::scale(double) <-double geo::twice<double>(double)
catcher() <-main
EOF
cat >raw.txt <<'EOF'
main <-[libc]
_ZN3geo5PointC1Eii <-main
_ZNK3geo5PointplERKS0_ <-main
_ZN3geo5PointC1Eii <-_ZNK3geo5PointplERKS0_
_ZNK3geo5Point4normEv <-main
_ZN3geo5twiceIiEET_S1_ <-main
_ZN3geo5scaleEi <-_ZN3geo5twiceIiEET_S1_
_ZN3geo5scaleEi <-_ZN3geo5twiceIiEET_S1_
_ZN3geo5twiceIdEET_S1_ <-main
_ZN3geo5scaleEd <-_ZN3geo5twiceIdEET_S1_
_ZN3geo5scaleEd <-_ZN3geo5twiceIdEET_S1_
_Z7catcherv <-main
EOF
# The graph's lines after the duration column: a demangled name has its
# parameter list, so no "()" is added.
cat >graph.txt <<'EOF'
main() {
geo::Point::Point(int, int);
geo::Point::operator+(geo::Point const&) const {
geo::Point::Point(int, int);
} /* geo::Point::operator+(geo::Point const&) const */
geo::Point::norm() const;
int geo::twice<int>(int) {
geo::scale(int);
geo::scale(int);
} /* int geo::twice<int>(int) */
double geo::twice<double>(double) {
geo::scale(double);
geo::scale(double);
} /* double geo::twice<double>(double) */
catcher();
} /* main */
EOF
cat >graph-raw.txt <<'EOF'
main() {
_ZN3geo5PointC1Eii();
_ZNK3geo5PointplERKS0_() {
_ZN3geo5PointC1Eii();
}
_ZNK3geo5Point4normEv();
_ZN3geo5twiceIiEET_S1_() {
_ZN3geo5scaleEi();
_ZN3geo5scaleEi();
}
_ZN3geo5twiceIdEET_S1_() {
_ZN3geo5scaleEd();
_ZN3geo5scaleEd();
}
_Z7catcherv();
}
EOF
graph_calls() { events | sed -E 's/^[^|]*\| +//'; }

one() {
	local s=$1 P
	P=$(prog cxx_names "$s")
	record f.dat -p function -- "$P" || fail "$s: record: $(cat f.dat.err)"
	report f.dat | funcs >f.txt
	expect "$s demangled" f.txt <demangled.txt
	report f.dat -O nosym-demangle | funcs >f.txt
	expect "$s -O nosym-demangle" f.txt <raw.txt
	report f.dat -O sym-offset | funcs | sed -E 's/\+0x[0-9a-f]+\/0x[0-9a-f]+//g' >f.txt
	grep -qx 'geo::scale(int) <-int geo::twice<int>(int)' f.txt ||
		fail "$s sym-offset: $(head -n 3 f.txt)"

	record g.dat -p function_graph -- "$P" || fail "$s: record graph: $(cat g.dat.err)"
	report g.dat -O funcgraph-tail | graph_calls >g.txt
	expect "$s graph" g.txt <graph.txt
	report g.dat -O nosym-demangle | graph_calls >g.txt
	expect "$s graph -O nosym-demangle" g.txt <graph-raw.txt

	# filters match the symbol table's names
	record l.dat -p function -l '_ZN3geo5scale*' -- "$P" || fail "$s: record -l: $(cat l.dat.err)"
	report l.dat | funcs | sort -u >l.txt
	expect "$s filter on mangled names" l.txt <<'EOF'
geo::scale(double) <-double geo::twice<double>(double)
geo::scale(int) <-int geo::twice<int>(int)
EOF
}
for_styles one

P=$(prog cxx_names gcc-pfe)
"$UTRACE" profile -o p.txt -- "$P" >p.out 2>p.err || fail "profile: $(cat p.err)"
cut -c3-32 p.txt | sed -E 's/ +$//' | tail -n +3 | sort >names.txt
"$UTRACE" profile -O nosym-demangle -o p.txt -- "$P" >p.out 2>p.err || fail "profile raw: $(cat p.err)"
awk '/_Z7catcherv/ {print $1}' p.txt >>names.txt
expect "profile table" names.txt <<'EOF'
catcher()
double geo::twice<double>(doub
geo::Point::Point(int, int)
geo::Point::norm() const
geo::Point::operator+(geo::Poi
geo::scale(double)
geo::scale(int)
int geo::twice<int>(int)
main
_Z7catcherv
EOF

# utrace show of a live process: the same formatter, the same option
rm -rf run
"$UTRACE" start -p function -l _Z7catcherv -l '_ZN3geo5PointC*' || fail "start"
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >live.out 2>live.err || fail "live run: $(cat live.err)"
"$UTRACE" show | funcs >show.txt
expect "show" show.txt <<'EOF'
geo::Point::Point(int, int) <-main
geo::Point::Point(int, int) <-geo::Point::operator+(geo::Point const&) const
catcher() <-main
EOF
"$UTRACE" show -O nosym-demangle | funcs >show.txt
expect "show -O nosym-demangle" show.txt <<'EOF'
_ZN3geo5PointC1Eii <-main
_ZN3geo5PointC1Eii <-_ZNK3geo5PointplERKS0_
_Z7catcherv <-main
EOF
"$UTRACE" reset

if command -v trace-cmd >/dev/null; then
	trace-cmd report f.dat 2>/dev/null | grep -c '_Z7catcherv$' >tc.txt
	expect "trace-cmd report: the file keeps the symbol table's names" tc.txt <<'EOF'
1
EOF
fi
finish
