#!/bin/bash
# Library calls under function_graph (issue 14): a call through the PLT
# nests at its caller's depth with its duration, the way a traced function
# does, whatever way the program reaches its GOT: lazy binding, BIND_NOW
# (-z now), -fno-plt (PIE or not), IBT PLTs (-fcf-protection, lazy or not).  The same
# graph for each.  A library function calling another through its own GOT
# (puts -> malloc in libc) nests too.
. "$(dirname "$0")/../lib/common.sh"
command -v gcc >/dev/null || skip "no gcc"
# one CPU: a graph whose thread moves between CPUs prints "} /* name */" closings
PIN=()
command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && PIN=(taskset -c 0)

cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void *volatile sink;
__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < n; i++) {
		char *p = malloc(32 + i);
		sink = p;
		free(p);
	}
}
int main(int argc, char **argv)
{
	work(argc > 1 ? atoi(argv[1]) : 2);
	puts("done");
	return 0;
}
C
durations() {
	# the overhead mark (+ over 10 us, ! over 100 us...) and the column's width masked too
	sed -E -e 's/^ *[0-9]+\)/ C)/' -e 's/[0-9]+\.[0-9]+ us/D us/' -e 's/ [ +!#*@$] +D us +\|/ D us |/'
}
for v in lazy now noplt nopie cet cetlazy; do
	case $v in
	lazy) flags= ;;
	now) flags="-Wl,-z,now" ;;
	noplt) flags="-fno-plt" ;;
	nopie) flags="-fno-plt -fno-pie -no-pie" ;;
	cet) flags="-fcf-protection=full -Wl,-z,now" ;;
	cetlazy) flags="-fcf-protection=full -Wl,-z,lazy -Wl,-z,ibtplt" ;; # .plt.sec: the lazy slot points at .plt's endbr64; push
	esac
	# shellcheck disable=SC2086
	gcc -O2 -fpatchable-function-entry=5 $flags -o "prog.$v" prog.c || fail "gcc $v"
	"${PIN[@]}" "$UTRACE" record -o "$v.dat" -O plt -p function_graph -l main -l work -l malloc -l free -l strtol \
		-l puts -- "./prog.$v" 2 >"$v.dat.out" 2>"$v.dat.err" || fail "$v: record"
	report "$v.dat" | events | durations >"$v.got"
	expect "$v" "$v.got" <<'X'
 C)               |  main() {
 C) D us |    strtol [libc]();
 C)               |    work() {
 C) D us |      malloc [libc]();
 C) D us |      free [libc]();
 C) D us |      malloc [libc]();
 C) D us |      free [libc]();
 C) D us |    }
 C)               |    puts [libc]() {
 C) D us |      malloc [libc]();
 C) D us |    }
 C) D us |  }
X
	# a duration is a duration: a number of microseconds
	report "$v.dat" | events | has -E '^ *[0-9]+\) +([+!#*@$] +)?[0-9]+\.[0-9]+ us +\|      malloc \[libc\]\(\);' ||
		fail "$v: no duration on malloc"
	no_crash "$v.dat.err"
done
finish
