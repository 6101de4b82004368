#!/bin/bash
# One selection model in the mount (issue 14 item 3): a plain -O2 program
# (no compiler site) running with -O patch-prologue and -O plt (set here
# through options/patch-prologue and options/plt) has its
# patched prologues and its library calls in available_filter_functions,
# marked with their kind as `utrace list -f` marks them ([prologue],
# [plt]), and set_ftrace_filter, set_ftrace_notrace, set_graph_function
# and :mod: written through the mount select them as any function; a
# function no patched prologue can trace is refused with its reason.
# Before the options, a word naming a function is refused, error_log
# saying how to trace it.
# hash1 (imul; add; ret) has the short form: its site is in its slot, and
# it is listed, selected (by name and by line number) and named as the
# others.
. "$(dirname "$0")/mount.lib"
command -v gcc >/dev/null || skip "no gcc"
export LC_ALL=C

cat >"$TOP/plain.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
void *volatile sink;
volatile int isink;
__attribute__((noinline)) int tiny(int x) { return x + 1; }
__attribute__((noinline)) unsigned hash1(unsigned x) { return x * 2654435761u + 1; }
__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < n; i++) {
		char *p = malloc(8);
		sink = p;
		free(p);
		isink = tiny(i);
		isink = (int)hash1((unsigned)i);
	}
}
int main(void)
{
	char line[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	puts("pong");
	while (fgets(line, sizeof(line), stdin)) {
		work(atoi(line));
		printf("ran %d\n", atoi(line));
	}
	return 0;
}
C
gcc -O2 -o "$TOP/plain" "$TOP/plain.c" || fail "gcc"
SERVER=$TOP/plain

do_mount
start_server s1
P=$(pid_of s1)
# run N: work(N), then wait for its "ran N"
run() {
	local c
	c=$(grep -c "^ran $1\$" "$TOP/s1.out")
	send s1 "$1"
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -c "^ran $1\$" "$TOP/s1.out")" -gt "$c" ] && return 0
		sleep 0.05
	done
	fail "no reply to $1"
}
cd "$MNT" || exit 1
pick() { grep -E '^(main|work|hash1|malloc|free)( |$)' | sort; }
pick <processes/$P/available_filter_functions >"$TOP/a.txt"
expect "no site, no option: nothing" "$TOP/a.txt" </dev/null
# a word naming one of its functions now: refused, error_log says how
w processes/$P/set_ftrace_filter work >"$TOP/e.txt"
expect "no option: work refused" "$TOP/e.txt" <<<EINVAL
grep -qF "'work' matches no traceable function (a plain program: see options/patch-prologue)" processes/$P/error_log ||
	fail "no hint in error_log: $(cat processes/$P/error_log)"
# the mount's own options, as record's and start's -O plt -O patch-prologue
expect_eq "options/patch-prologue" 0 "$(cat options/patch-prologue)"
echo 1 >options/plt || fail "options/plt"
echo patch-prologue >trace_options || fail "trace_options: patch-prologue"
check "trace_options says so" grep -qx patch-prologue trace_options
expect_eq "options/patch-prologue" 1 "$(cat options/patch-prologue)"
pick <processes/$P/available_filter_functions >"$TOP/a.txt"
expect "the process's kinds" "$TOP/a.txt" <<'X'
free [libc] [plt]
hash1 [prologue]
main [prologue]
malloc [libc] [plt]
work [prologue]
X
pick <available_filter_functions >"$TOP/a.txt"
expect "the top level's" "$TOP/a.txt" <<'X'
free [libc] [plt]
hash1 [prologue]
main [prologue]
malloc [libc] [plt]
work [prologue]
X
# the same marks as list -f
"$UTRACE" list -O plt -O patch-prologue -f "$SERVER" 2>/dev/null | pick >"$TOP/l.txt"
expect "list -f marks them alike" "$TOP/l.txt" <"$TOP/a.txt"
# a line number of available_filter_functions selects that line's function
for f in hash1 work; do
	n=$(grep -n "^$f " processes/$P/available_filter_functions | cut -d: -f1)
	echo "$n" >processes/$P/set_ftrace_filter || fail "index $n"
	expect "line $f's number selects $f" processes/$P/set_ftrace_filter <<<"$f"
done
echo >processes/$P/set_ftrace_filter

echo 'malloc free work' >set_ftrace_filter || fail "filter"
echo free >set_ftrace_notrace || fail "notrace"
sort set_ftrace_filter >"$TOP/f.txt"
expect "the filter reads back as the kernel's" "$TOP/f.txt" <<'X'
free [libc]
malloc [libc]
work
X
echo function >current_tracer
run 3
funcs <trace | sort | uniq -c | awk '{$1 = $1; print}' >"$TOP/t.txt"
expect "filter and notrace" "$TOP/t.txt" <<'X'
3 malloc <-work
1 work <-main
X
echo >set_ftrace_notrace
echo ':mod:libc' >set_ftrace_filter || fail ":mod:"
echo >trace
run 2
# main's own calls into libc (fgets, printf...) too; work's are counted
funcs <trace | grep -e '<-work' -e '^work ' | sort | uniq -c | awk '{$1 = $1; print}' >"$TOP/t.txt"
expect ":mod:libc: the library calls into libc" "$TOP/t.txt" <<'X'
2 free <-work
2 malloc <-work
X
echo >set_ftrace_filter
echo work >set_graph_function || fail "graph filter"
echo function_graph >current_tracer
run 1
funcs <trace | sed -E 's/^[^|]*\|  //; s/ +$//' >"$TOP/g.txt"
expect "set_graph_function over a patched prologue" "$TOP/g.txt" <<'X'
work() {
  malloc [libc]();
  free [libc]();
  hash1();
}
X
echo >set_graph_function
w set_ftrace_filter 'nosuchfn' >"$TOP/e.txt"
expect "a word naming nothing is still refused" "$TOP/e.txt" <<<EINVAL
# a function no patched prologue can trace: refused, error_log says why
echo >error_log
w set_ftrace_filter tiny >"$TOP/e.txt"
expect "tiny refused" "$TOP/e.txt" <<<EINVAL
sed -E 's/^\[ *[0-9]+\.[0-9]+\]/[<TS>]/' error_log >"$TOP/el.txt"
expect "error_log gives the reason" "$TOP/el.txt" <<'X'
[<TS>] utrace: error: set_ftrace_filter: 'tiny' matches no traceable function
  tiny: no patched prologue either: shorter than the 5 bytes a patch needs
  Command: tiny
           ^
X
cd "$TOP" || exit 1
alive
finish
