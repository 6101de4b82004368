#!/bin/bash
# Start-up with tracing off (libutrace loaded, no tracer, no filter) reads
# no symbol table: the process's sites are found and made ready, its
# objects listed in its session, but their names wait.  When tracing
# starts, the names (and the session's copy of the symbols, syms.<N>) come
# from the object that was loaded, even if the file at its path has been
# rebuilt meanwhile; filters by name and by glob apply as from the start.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

command -v gcc >/dev/null || skip "no gcc"

cat >one.c <<'EOF'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { return x * 2; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + 1; }
int main(void)
{
	char line[64];
	volatile int s = 0;

	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		s += mid(1);
		printf("ok\n");
		fflush(stdout);
	}
	return 0;
}
EOF
# The replacement at the same path: other functions at other addresses.
cat >two.c <<'EOF'
__attribute__((noinline)) int other_a(int x) { return x * 3; }
__attribute__((noinline)) int mid_other(int x) { return other_a(x) - 1; }
int main(void) { return mid_other(1); }
EOF
build() { gcc -O1 -fpatchable-function-entry=5 "$@"; }

# wait_lines N: until prog.out has N lines
wait_lines() {
	for ((i = 0; i < 1000; i++)); do
		[ "$(wc -l <prog.out)" -ge "$1" ] && return
		sleep 0.01
	done
	fail "program: $(cat prog.out prog.err)"
}

rm -rf run
build -o prog one.c || fail "gcc one.c"
mkfifo prog.in
: >prog.out
LD_PRELOAD=$UT_BUILD/libutrace.so ./prog <prog.in >prog.out 2>prog.err &
P=$!
exec 7>prog.in
wait_lines 1
sess=$(ls -d run/"$P".* 2>/dev/null | head -n 1)
[ -d "$sess" ] || fail "no session for $P: $(ls run)"

# tracing off: the program is listed, no symbols were read for it
awk '$1 == "load" { print $3, ($4 ~ /\/prog$/ ? "prog" : "other") }' "$sess/modules" |
	grep -c ' prog$' >listed.txt
expect "tracing off: the program is listed" listed.txt <<'EOF'
1
EOF
ls "$sess" | grep -c '^syms\.0$' >copies.txt
expect "tracing off: no copy of its symbols yet" copies.txt <<'EOF'
0
EOF

# the file is rebuilt, then tracing starts: names from the loaded object
build -o prog two.c || fail "gcc two.c"
check "start" "$UTRACE" start -p function -l mid -l 'lea*'
echo go >&7
wait_lines 2
"$UTRACE" show -P "$P" 2>show.err | funcs >show.txt
expect "named from the object that runs" show.txt <<'EOF'
mid <-main
leaf <-mid
EOF
grep -q "prog: changed since it was traced.*names from the session's copy" show.err ||
	fail "the reader does not use the session's copy: $(cat show.err)"
check "the copy is written once tracing starts" test -s "$sess/syms.0"

exec 7>&-
wait "$P" || fail "program exit status $?"
"$UTRACE" reset
finish
