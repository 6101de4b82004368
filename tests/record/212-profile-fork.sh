#!/bin/bash
# utrace profile of a program that forks inside a traced function: the
# child returns through spawn() (and main) entered before the fork, whose
# profiler rows are the parent's (shared memory the child does not map):
# the child must not touch them (it crashed in the return hook's fast
# path); its own calls are counted in its own table, the parent's in the
# parent's.
. "$(dirname "$0")/../lib/common.sh"
command -v gcc >/dev/null || skip "no gcc"

cat >pf.c <<'C'
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
volatile int sink;
__attribute__((noinline)) pid_t spawn(void)
{
	pid_t p;

	fflush(stdout);
	p = fork();
	sink = p;
	return p;
}
__attribute__((noinline)) void work(int i) { sink = i; }
int main(void)
{
	int st = 0;
	pid_t p = spawn();

	if (p < 0)
		return 1;
	if (p == 0) {
		for (int i = 0; i < 3; i++)
			work(i);
		return 5;
	}
	waitpid(p, &st, 0);
	work(9);
	printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return 0;
}
C
gcc -O2 -fpatchable-function-entry=5 -o pf pf.c || fail "gcc"

# the crash needed the parent's rows unmapped by then: not every run
for o in "" "-O nosleep-time" "" "-O nosleep-time" "" ""; do
	# shellcheck disable=SC2086 # the option, or none
	"$UTRACE" profile $o -o prof.txt -- ./pf >out 2>err
	expect_eq "profile $o: status" 0 $?
	expect "profile $o: the child exited by itself" out <<'EOF'
child 5
EOF
	# the tables: all merged, then the parent's and the child's
	awk '/^==> thread/ {t++; next} /^  [a-z]/ && $1 != "Function" {print t + 0, $1, $2}' prof.txt |
		sort >hits.txt
	expect "profile $o: hits per table" hits.txt <<'EOF'
0 main 1
0 spawn 1
0 work 4
1 main 1
1 spawn 1
1 work 1
2 work 3
EOF
	no_crash err
done
finish
