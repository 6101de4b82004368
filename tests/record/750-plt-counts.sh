#!/bin/bash
# Library calls (issue 14): `record -O plt -p function -l malloc -l free
# -l main` counts every call the program makes to malloc and free through
# its PLT, exactly, named after the function in libc and its caller; the
# libc-internal call puts makes to malloc (through libc's own GOT) is one
# more.  Without -O plt the same words turn library calls on (said on
# stderr), a glob matching the program's functions does not, and with
# -O noplt they are refused before the program runs, with the hint.  :mod:
# selects a library's functions, and notrace takes a library call out.
. "$(dirname "$0")/../lib/common.sh"
command -v gcc >/dev/null || skip "no gcc"
export LC_ALL=C

cat >prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
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
	work(argc > 1 ? atoi(argv[1]) : 3);
	puts("done");
	return 7;
}
C
gcc -O2 -fpatchable-function-entry=5 -o prog prog.c || fail "gcc"

record a.dat -O plt -p function -l malloc -l free -l main -- ./prog 1000
expect_eq "exit status" 7 $?
expect_eq "stdout" "done" "$(cat a.dat.out)"
report a.dat | funcs | sort | uniq -c | awk '{$1 = $1; print}' >got
expect "counts" got <<'X'
1000 free <-work
1 main <-[libc]
1 malloc <-_IO_file_doallocate
1000 malloc <-work
X

# without -O plt, words naming library functions turn library calls on,
# saying so; the same for the program built plain (issue 14's example as
# written): main through its patched prologue (the default), the library
# calls as above
gcc -O2 -o plainprog prog.c || fail "gcc plain"
for p in prog plainprog; do
	record b.dat -p function -l malloc -l free -l main -- "./$p" 1000
	expect_eq "$p, no -O plt: status" 7 $?
	grep -q "note: tracing library calls" b.dat.err || fail "$p: no note: $(cat b.dat.err)"
	report b.dat | funcs | sort | uniq -c | awk '{$1 = $1; print}' >got
	expect "$p, no -O plt: counts" got <<'X'
1000 free <-work
1 main <-[libc]
1 malloc <-_IO_file_doallocate
1000 malloc <-work
X
done
# words that match the program's functions never do (a glob is not for libc)
record g.dat -p function -l 'wor*' -- ./prog 2
report g.dat | funcs >got
expect "glob on the program" got <<<"work <-main"
grep -q note g.dat.err && fail "a note for a glob on the program"
# -O noplt: the words are refused, saying how
record n.dat -O noplt -p function -l malloc -- ./prog 3
expect_eq "refused with -O noplt" 2 $?
grep -q -- "-O plt traces the calls" n.dat.err || fail "no -O plt hint: $(cat n.dat.err)"

# :mod: selects what a library defines; notrace leaves one out
record c.dat -O plt -p function -l ':mod:libc' -n puts -n strtol -- ./prog 2
report c.dat | funcs | sort | uniq -c | awk '{$1 = $1; print}' >got
expect "mod" got <<'X'
2 free <-work
1 malloc <-_IO_file_doallocate
2 malloc <-work
X
# the library's file name works too (the function belongs to the library defining it)
record e.dat -O plt -p function -l ':mod:libc.so.6' -n puts -n strtol -- ./prog 2
report e.dat | funcs | sort | uniq -c | awk '{$1 = $1; print}' >got2
check ":mod:libc.so.6" cmp -s got got2
# every library call with no filter: the program's and libc's own
record d.dat -O plt -p function -- ./prog 2
report d.dat | funcs | grep -c 'malloc <-work' >got
expect "no filter" got <<<2
report d.dat | funcs | has '^work <-main$' || fail "the program's own function is missing"
no_crash a.dat.err c.dat.err d.dat.err
finish
