#!/bin/bash
# The C++ runtime under function_graph (tests/progs/cxx_runtime.cpp): an
# exception thrown through traced frames whose destructors run during the
# unwinding, caught two frames up; caught and rethrown; a lambda called
# through std::function; a std::thread running a lambda.  The program's
# output is its own; the graph has each destructor at the depth of the
# frame that runs it, the functions the exception leaves print entry-only,
# the catching function closes at its depth; names are the demangler's
# (a lambda as each compiler names it: gcc main::{lambda(int)#1}, clang
# main::$_0).
. "$(dirname "$0")/../lib/common.sh"

cat >graph.txt <<'EOF'
catcher(int) {
  middle(int) {
    Guard::Guard(int);
    thrower(int) {
      Guard::Guard(int);
      Guard::~Guard();
    Guard::~Guard();
} /* catcher(int) */
outer(int) {
  rethrower(int) {
    middle(int) {
      Guard::Guard(int);
      thrower(int) {
        Guard::Guard(int);
        Guard::~Guard();
      Guard::~Guard();
    Guard::Guard(int);
    Guard::~Guard();
} /* outer(int) */
apply(std::function<int (int)> const&, int) {
  std::_Function_handler<int (int), LAMBDA>::_M_invoke(std::_Any_data const&, int&&) {
    after(int);
  } /* std::_Function_handler<int (int), LAMBDA>::_M_invoke(std::_Any_data const&, int&&) */
} /* apply(std::function<int (int)> const&, int) */
std::thread::_State_impl<std::thread::_Invoker<std::tuple<LAMBDA> > >::_M_run() {
  catcher(int) {
    middle(int) {
      Guard::Guard(int);
      thrower(int) {
        Guard::Guard(int);
        Guard::~Guard();
      Guard::~Guard();
  } /* catcher(int) */
  after(int);
} /* std::thread::_State_impl<std::thread::_Invoker<std::tuple<LAMBDA> > >::_M_run() */
EOF

one() {
	local s=$1 P
	P=$(prog cxx_runtime "$s")
	"$P" >plain.out 2>&1 || fail "$s: untraced run"
	record g.dat -p function_graph -l catcher -l middle -l thrower -l 'Guard::*' -l outer \
		-l rethrower -l apply -l after -l '*::_M_invoke' -l '*::_M_run' -- "$P" ||
		fail "$s: record: $(cat g.dat.err)"
	check "$s: output as untraced" cmp -s plain.out g.dat.out
	report g.dat -O funcgraph-tail | events | sed -E 's/^[^|]*\| //; s/^ //' |
		sed -E 's/main::(\{lambda\([a-z]*\)#[0-9]\}|\$_[0-9])/LAMBDA/g' |
		sed -E '/^-+$/d; /^$/d; /=> /d' >g.txt
	expect "$s: graph" g.txt <graph.txt

	# everything traced: the graph ends where it started
	record all.dat -p function_graph -- "$P" || fail "$s: record all: $(cat all.dat.err)"
	check "$s: output as untraced (all)" cmp -s plain.out all.dat.out
	report all.dat -O funcgraph-tail | events | grep -v '^ *-' | grep -v '=>' | tail -n 1 |
		sed -E 's/^[^|]*\| //' >end.txt
	expect "$s: main closes at depth 0" end.txt <<<" } /* main */"
}
for_styles one
finish
