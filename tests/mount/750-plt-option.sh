#!/bin/bash
# Library calls in the mount (issue 14): options/plt (utrace's own, off by
# default, listed in trace_options) is the -O plt of record and start: new
# processes hook their GOT slots, and set_ftrace_filter names library
# functions as any other.
. "$(dirname "$0")/mount.lib"
command -v gcc >/dev/null || skip "no gcc"
export LC_ALL=C

cat >"$TOP/prog.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
void *volatile sink;
__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < n; i++) {
		char *p = malloc(8);
		sink = p;
		free(p);
	}
}
int main(void)
{
	work(4);
	return 0;
}
C
gcc -O2 -fpatchable-function-entry=5 -o "$TOP/prog" "$TOP/prog.c" || fail "gcc"

do_mount
cd "$MNT" || exit 1
expect_eq "option file" 0 "$(cat options/plt)"
check "trace_options lists it" grep -qx noplt trace_options
echo 1 >options/plt || fail "options/plt: write"
check "trace_options says so" grep -qx plt trace_options
echo 'work malloc free' >set_ftrace_filter || fail "filter"
echo function >current_tracer
LD_PRELOAD=$UT_BUILD/libutrace.so "$TOP/prog" >"$TOP/prog.out" 2>"$TOP/prog.err" ||
	fail "program: $(cat "$TOP/prog.err")"
funcs <trace | sort | uniq -c | awk '{$1 = $1; print}' >"$TOP/t.txt"
expect "library calls" "$TOP/t.txt" <<'X'
4 free <-work
4 malloc <-work
1 work <-main
X
echo noplt >trace_options
expect_eq "off again" 0 "$(cat options/plt)"
echo >trace
LD_PRELOAD=$UT_BUILD/libutrace.so "$TOP/prog" >"$TOP/prog.out" 2>"$TOP/prog.err"
funcs <trace | grep -c '<-work' >"$TOP/t.txt"
expect "no library call" "$TOP/t.txt" <<<0
cd "$TOP" || exit 1
finish
