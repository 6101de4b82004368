#!/bin/bash
# Building a C++ program with templates, inline constructors and a static
# library so utrace traces it, with each compiler's recipe (utrace help
# cflags).  g++ 12 fails to link it with -fpatchable-function-entry alone:
# each object's entries land in one section outside the COMDAT groups, and
# the linker drops a group that an earlier object also defines.  `utrace
# c++` (-B: utrace fixes the entries on their way to the assembler) links
# it; so do clang++ and -pg -mfentry, whose traced run writes no gmon.out.
. "$(dirname "$0")/../lib/common.sh"
command -v g++ >/dev/null && command -v clang++ >/dev/null || skip "g++ and clang++ needed"

cat >edge.h <<'EOF'
#include <string>
#include <vector>
struct Edge {
	std::string name;
	__attribute__((noinline)) explicit Edge(const char *n) : name(n) {}
};
EOF
cat >a.cc <<'EOF'
#include "edge.h"
std::vector<Edge *> va;
void adda(Edge *e) { va.push_back(e); }
EOF
cat >b.cc <<'EOF'
#include "edge.h"
std::vector<Edge *> vb;
void addb(Edge *e) { vb.push_back(e); }
Edge *mk(const char *s) { return new Edge(s); }
EOF
# c.o instantiates push_back's _M_realloc_insert but not ~vector (its vector
# is never destroyed): first in the link, its copy of the template is kept
# and a.o's discarded, while a.o's entries section (linked to ~vector) stays.
cat >c.cc <<'EOF'
#include "edge.h"
std::vector<Edge *> *vc = new std::vector<Edge *>;
void addc(Edge *e) { vc->push_back(e); }
EOF
cat >main.cc <<'EOF'
#include <cstdio>
#include "edge.h"
void adda(Edge *); void addb(Edge *); void addc(Edge *); Edge *mk(const char *);
int main() { Edge *e = mk("x"); adda(e); addb(e); addc(e); std::puts(e->name.c_str()); return 0; }
EOF

# build DIR CXX FLAGS...: objects, the static library (c.o first), the program
build() {
	local dir=$1 cxx=$2
	shift 2
	mkdir -p "$dir" && rm -f "$dir"/*
	for f in a b c main; do
		$cxx "$@" -O2 -c $f.cc -o "$dir/$f.o" 2>>"$dir/err" || return 1
	done
	ar rcs "$dir/libedge.a" "$dir/c.o" "$dir/a.o" "$dir/b.o" &&
		$cxx "$@" -O2 -o "$dir/prog" "$dir/main.o" "$dir/libedge.a" 2>>"$dir/err"
}

# the calls of a few functions, by name
counts() {
	report "$1" | funcs | sed -E 's/ <-.*//' |
		grep -E '^(adda|addb|addc|mk|Edge::Edge|void std::vector<Edge\*.*_M_realloc_insert)' |
		sed -E 's/^void std::vector.*_M_realloc_insert.*/_M_realloc_insert/' | sort | uniq -c
}
cat >counts.txt <<'EOF'
      1 Edge::Edge(char const*)
      1 adda(Edge*)
      1 addb(Edge*)
      1 addc(Edge*)
      1 mk(char const*)
EOF
# g++ keeps the template instance the linker chose among three objects' copies
sed '1a\      3 _M_realloc_insert' counts.txt >counts-gcc.txt

if build plain g++ -fpatchable-function-entry=5; then
	say "note: this g++ links -fpatchable-function-entry programs with COMDAT groups"
else
	grep -q "referenced in section \`__patchable_function_entries'.*discarded section" plain/err ||
		fail "plain g++: not the expected link error: $(tail -n 3 plain/err)"
fi

"$UTRACE" cflags clang++ >f.txt
expect "cflags clang++" f.txt <<<"-fpatchable-function-entry=5"
"$UTRACE" cflags g++ | sed "s|$UT_BUILD|BUILD|" >f.txt
expect "cflags g++" f.txt <<<"-fpatchable-function-entry=5 -BBUILD/libexec/"
CXX="$UTRACE g++" "$UTRACE" cflags >f.txt 2>&1 # CC with a space: not a compiler, cc is taken
grep -q '^-fpatchable-function-entry=5' f.txt || fail "cflags with CC unusable: $(cat f.txt)"

for cxx in g++ clang++; do
	build "$cxx" "$UTRACE" "$cxx" || fail "utrace $cxx: $(tail -n 3 "$cxx/err")"
	record $cxx.dat -p function -- "$cxx/prog" || fail "record $cxx: $(cat $cxx.dat.err)"
	counts $cxx.dat >c.txt
	[ $cxx = g++ ] && cp counts-gcc.txt want.txt || cp counts.txt want.txt
	expect "utrace $cxx: calls" c.txt <want.txt
done
# the recipe in the build's own variables
mkdir -p flags && $UTRACE cflags g++ >flagsvar || fail "cflags"
build flags g++ $(cat flagsvar) || fail "g++ \$(utrace cflags g++): $(tail -n 3 flags/err)"

# -pg -mfentry: the program's own run writes gmon.out, a traced one does not
build pg g++ -pg -mfentry || fail "g++ -pg -mfentry: $(tail -n 3 pg/err)"
mkdir -p run && (cd run && ../pg/prog >/dev/null) && [ -e run/gmon.out ] ||
	fail "untraced -pg program wrote no gmon.out (the check below proves nothing)"
rm -f run/gmon.out
(cd run && record ../pg.dat -p function -- ../pg/prog) || fail "record -pg: $(cat pg.dat.err)"
[ -e run/gmon.out ] && fail "traced -pg program wrote gmon.out"
counts pg.dat >c.txt
expect "g++ -pg -mfentry: calls" c.txt <counts-gcc.txt

# objects compiled outside the wrapper fail the link: the wrapper says what to do
build mixed "$UTRACE" g++ || fail "mixed"
g++ -O2 -fpatchable-function-entry=5 -c a.cc -o mixed/a.o
ar rcs mixed/libedge.a mixed/c.o mixed/a.o mixed/b.o
"$UTRACE" g++ -o mixed/prog mixed/main.o mixed/libedge.a 2>mixed.err && fail "mixed link passed"
grep -o "utrace: this link failed.*" mixed.err | cut -c1-109 >m.txt
expect "mixed link: the hint" m.txt <<'EOF'
utrace: this link failed on objects compiled by g++ with -fpatchable-function-entry but without utrace's fix-
EOF

# an object without sites: traced where it can be, its functions are not listed
g++ -O2 -c a.cc -o mixed/a.o
ar rcs mixed/libedge.a mixed/c.o mixed/a.o mixed/b.o
"$UTRACE" g++ -o mixed/prog mixed/main.o mixed/libedge.a || fail "no-site object: link"
"$UTRACE" list -f mixed/prog 2>list.err | grep -cE '^(_Z4addaP4Edge|_Z4addbP4Edge|adda\(Edge\*\)|addb\(Edge\*\))$' >l.txt
expect "an object without sites: its function is not listed" l.txt <<<"1"
grep -o "^utrace: note: functions of mixed/prog without a site.*not traced: " list.err >n.txt
expect "list -f says which functions have no site" n.txt <<'EOF'
utrace: note: functions of mixed/prog without a site (built without utrace's flags: 'utrace help cflags'), not traced: 
EOF
grep -q 'not traced: .*adda(Edge\*)' list.err || fail "the note does not name adda(Edge*): $(cat list.err)"
grep -q 'addb' list.err && fail "the note names addb, which has a site: $(cat list.err)"
"$UTRACE" list -f g++/prog >/dev/null 2>list.err
check "no note for a program whose functions all have sites" test ! -s list.err
finish
