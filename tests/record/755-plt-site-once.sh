#!/bin/bash
# A library function that has a site of its own and is called through the
# PLT is recorded once per call, by its site (which also sees the
# library's internal calls); the hook is for functions without one
# (issue 14).  list -f -O plt lists it once, as a site; the function
# without a site is marked [plt].
. "$(dirname "$0")/../lib/common.sh"
command -v gcc >/dev/null || skip "no gcc"
export LC_ALL=C
# one CPU: a graph whose thread moves between CPUs prints "} /* name */" closings
PIN=()
command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && PIN=(taskset -c 0)

cat >lib.c <<'C'
__attribute__((noinline)) int lib_sited(int x) { return x + 1; }
__attribute__((noinline, patchable_function_entry(0, 0))) int lib_nosite(int x) { return x * 2; }
__attribute__((noinline)) int lib_inner(int x) { return lib_sited(x) + lib_nosite(x); }
C
cat >prog.c <<'C'
#include <stdio.h>
int lib_sited(int), lib_nosite(int), lib_inner(int);
int main(void)
{
	int t = 0;
	for (int i = 0; i < 5; i++)
		t += lib_sited(i) + lib_nosite(i);
	t += lib_inner(1);
	printf("%d\n", t);
	return 0;
}
C
gcc -O2 -fPIC -shared -fpatchable-function-entry=5 -fno-semantic-interposition -o libsite.so lib.c &&
	gcc -O2 -fpatchable-function-entry=5 -o prog prog.c -L. -lsite -Wl,-rpath,"$PWD" || fail "gcc"

"$UTRACE" list -O plt -f ./prog 2>/dev/null | grep lib_ >got
expect "list" got <<'X'
lib_sited [libsite]
lib_inner [libsite]
lib_nosite [libsite] [plt]
X
for tr in function function_graph; do
	"${PIN[@]}" "$UTRACE" record -o "$tr.dat" -O plt -p $tr -l 'lib_*' -- ./prog >"$tr.dat.out" \
		2>"$tr.dat.err" || fail "$tr: record"
	expect_eq "$tr: stdout" 39 "$(cat "$tr.dat.out")"
	if [ $tr = function ]; then
		report "$tr.dat" | funcs | sort | uniq -c | awk '{$1 = $1; print}' >got
		expect "$tr: once each" got <<'X'
1 lib_inner <-main
5 lib_nosite <-main
1 lib_sited <-lib_inner
5 lib_sited <-main
X
	fi
done
# lib_inner calls lib_nosite directly (no GOT: -fno-semantic-interposition): not seen
report function_graph.dat | events | sed -E 's/^ *[0-9]+\) +[0-9. +!#*@$]*us +\|/ D |/; s/^ *[0-9]+\) +\|/   |/' >got
expect "graph: once each" got <<'X'
 D |  lib_sited [libsite]();
 D |  lib_nosite [libsite]();
 D |  lib_sited [libsite]();
 D |  lib_nosite [libsite]();
 D |  lib_sited [libsite]();
 D |  lib_nosite [libsite]();
 D |  lib_sited [libsite]();
 D |  lib_nosite [libsite]();
 D |  lib_sited [libsite]();
 D |  lib_nosite [libsite]();
   |  lib_inner [libsite]() {
 D |    lib_sited [libsite]();
 D |  }
X
finish
