#!/bin/bash
# Library calls in a multi-threaded program (issue 14): four threads call
# malloc and free through the PLT, thread K 100*K times each, while the main
# thread waits; every call is counted in its own thread, none lost or
# doubled, under function and function_graph.
. "$(dirname "$0")/../lib/common.sh"
command -v gcc >/dev/null || skip "no gcc"
export LC_ALL=C

cat >prog.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
void *volatile sink;
__attribute__((noinline)) void *worker(void *arg)
{
	int n = 100 * (int)(long)arg;
	for (int i = 0; i < n; i++) {
		char *p = malloc(16 + i % 64);
		sink = p;
		free(p);
	}
	return NULL;
}
int main(void)
{
	pthread_t t[4];
	for (long k = 0; k < 4; k++)
		pthread_create(&t[k], NULL, worker, (void *)(k + 1));
	for (int k = 0; k < 4; k++)
		pthread_join(t[k], NULL);
	puts("joined");
	return 0;
}
C
gcc -O2 -fpatchable-function-entry=5 -pthread -o prog prog.c || fail "gcc"
for tr in function function_graph; do
	record "$tr.dat" -O plt -p "$tr" -l malloc -l free -l worker -- ./prog || fail "$tr: record"
	expect_eq "$tr: stdout" joined "$(cat "$tr.dat.out")"
	if [ $tr = function ]; then
		report "$tr.dat" | grep -v '<-_IO_file_doallocate' | task_counts >got
	else
		# one line per call: the graph's entries (leaves and openings)
		report "$tr.dat" -O funcgraph-proc | events |
			sed -nE 's/^ *[0-9]+\) +([^ ]+-[0-9]+) .*\| +([a-z_]+)( \[libc\])?\(\)( \{|;)$/\1 \2/p' |
			awk '{c[$1" "$2]++} END {for (k in c) {split(k, a, " "); print a[1], a[2] "=" c[k]}}' |
			sort -k1,1 -k2,2 |
			awk '$1 != t {if (t != "") print l; t = $1; l = ""} {l = l (l == "" ? "" : " ") $2} END {if (t != "") print l}' |
			grep -v 'malloc=1$' | sort | uniq -c | awk '{$1 = $1; print}' >got
	fi
	expect "$tr: per thread" got <<'X'
1 free=100 malloc=100 worker=1
1 free=200 malloc=200 worker=1
1 free=300 malloc=300 worker=1
1 free=400 malloc=400 worker=1
X
	no_crash "$tr.dat.err"
done
finish
