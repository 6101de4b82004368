#!/bin/bash
# A filter that names only functions no patched prologue can trace is an
# error that says why (issue 14, "Bad input"), live too: `utrace start -O
# patch-prologue -l tiny` on a running plain -O2 program exits 2 with the
# reason, and the process keeps running untouched; a patchable function
# is then taken.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"
command -v gcc >/dev/null || skip "no gcc"

cat >plain.c <<'C'
#include <stdio.h>
#include <stdlib.h>
volatile int sink;
__attribute__((noinline)) int tiny(int x) { return x + 1; }
__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < n; i++)
		sink += tiny(i) * 3;
}
int main(void)
{
	char line[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		work(atoi(line));
		printf("ran %d\n", atoi(line));
	}
	return 0;
}
C
gcc -O2 -o plain plain.c || fail "gcc"
mkfifo in
: >out
LD_PRELOAD=$UT_BUILD/libutrace.so ./plain <in >out 2>err &
pid=$!
exec 7>in
echo 1 >&7
for ((i = 0; i < 500; i++)); do
	grep -q "ran 1" out && break
	sleep 0.01
done
"$UTRACE" start -P "$pid" -O patch-prologue -p function -l tiny >start.out 2>start.err
expect_eq "refused" 2 $?
sed "s/process $pid:/process PID:/" start.err >why.txt
expect "the reason" why.txt <<'X'
utrace: process PID: set_ftrace_filter: 'tiny' matches no traceable function
  tiny: no patched prologue either: shorter than the 5 bytes a patch needs
X
"$UTRACE" start -P "$pid" -O patch-prologue -p function -l work >start2.out 2>start2.err ||
	fail "work: $(cat start2.err)"
echo 3 >&7
for ((i = 0; i < 500; i++)); do
	grep -q "ran 3" out && break
	sleep 0.01
done
"$UTRACE" show -P "$pid" 2>show.err | count_funcs >s.txt
expect "work traced, tiny not" s.txt <<'X'
work 1
X
exec 7>&-
wait "$pid"
no_crash err start.err start2.err show.err
finish
