#!/bin/bash
# A trace is named after the binary that ran, not after the file now at its
# path: a process killed with SIGKILL whose program is then rebuilt (another
# program at the same path) or deleted, and a program rebuilt while its
# process still runs, are named from the session's copy of the symbols, and
# the reader says so on stderr (once).  The runtime records each object's
# build-id (size and mtime without one) and writes that copy (syms.<N>),
# shared by the processes that load the same object.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

command -v gcc >/dev/null || skip "no gcc"

cat >one.c <<'EOF'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { return x * 2; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + 1; }
int main(void)
{
	volatile int s = 0;
	for (int i = 0; i < 2; i++)
		s += mid(i);
	printf("ready\n");
	fflush(stdout);
	pause();
	return s;
}
EOF
# The replacement: other functions at other addresses.
cat >two.c <<'EOF'
__attribute__((noinline)) int other_a(int x) { return x * 3; }
__attribute__((noinline)) int other_b(int x) { return other_a(x) - 1; }
int main(void) { return other_b(1); }
EOF

build() { gcc -O1 -fpatchable-function-entry=5 "$@"; }

# start_prog: the program from one.c as ./prog, traced from its start; PID in P.
start_prog() {
	rm -rf run prog prog.out
	build "$@" -o prog one.c || fail "gcc one.c"
	"$UTRACE" start -p function -l leaf -l mid || fail "start"
	LD_PRELOAD=$UT_BUILD/libutrace.so ./prog >prog.out 2>prog.err &
	P=$!
	for ((i = 0; i < 1000; i++)); do
		grep -q ready prog.out && break
		sleep 0.01
	done
	grep -q ready prog.out || fail "program not ready: $(cat prog.err)"
}

kill_prog() {
	kill -9 "$P"
	wait "$P" 2>/dev/null
}

cat >expected.txt <<'EOF'
mid <-main
leaf <-mid
mid <-main
leaf <-mid
EOF

# check_named LABEL WHY [-P PID]: show and extract name the trace right and
# warn once, with WHY in the warning.
check_named() {
	local label=$1 why=$2
	shift 2
	"$UTRACE" show "$@" 2>show.err | funcs >show.txt
	expect "$label: show" show.txt <expected.txt
	grep -q "prog: $why.*names from the session's copy" show.err ||
		fail "$label: show says nothing: $(cat show.err)"
	expect_eq "$label: said once" 1 "$(grep -c "prog: " show.err)"
	"$UTRACE" extract "$@" -o t.dat 2>ex.err || fail "$label: extract: $(cat ex.err)"
	grep -q "prog: $why.*names from the session's copy" ex.err ||
		fail "$label: extract says nothing: $(cat ex.err)"
	report t.dat | funcs >ex.txt
	expect "$label: extract" ex.txt <expected.txt
}

# 1. Killed, then another program built at the same path.
start_prog
kill_prog
build -o prog two.c || fail "gcc two.c"
check_named "rebuilt after kill" "changed since it was traced (build-id [0-9a-f]* then, [0-9a-f]* now)" -P "$P"

# 2. Killed, then deleted.
start_prog
kill_prog
rm prog
check_named "deleted after kill" "deleted since it was traced" -P "$P"

# 3. Without a build-id the size and mtime tell.
start_prog -Wl,--build-id=none
kill_prog
build -Wl,--build-id=none -o prog two.c || fail "gcc two.c"
check_named "no build-id" "changed since it was traced (size or mtime differ)" -P "$P"

# 4. Rebuilt under a live trace: the running process is named right too.
start_prog
build -o prog two.c || fail "gcc two.c"
check_named "rebuilt while running" "changed since it was traced" -P "$P"
kill_prog

# 5. Unchanged: no word on stderr.
start_prog
"$UTRACE" show -P "$P" 2>show.err | funcs >show.txt
expect "unchanged" show.txt <expected.txt
[ -s show.err ] && fail "unchanged: stderr: $(cat show.err)"
kill_prog

# 6. Processes share one copy of each object's symbols (a hard link from
# the run-time directory); extract removes the copies no session needs.
# Tracing is on: with it off, a process writes its copies only once tracing
# starts (record/410).
rm -rf run
build -o quick two.c || fail "gcc two.c"
"$UTRACE" start -p function -l other_a || fail "start"
for i in 1 2; do
	LD_PRELOAD=$UT_BUILD/libutrace.so ./quick
done
prog_copy=$(awk '/^syms / {print ".syms-" $4 "-" $5; exit}' run/[0-9]*/modules | head -n 1)
check "shared copy of quick's symbols" test -f "run/$prog_copy"
expect_eq "linked from both sessions" 3 "$(stat -c %h "run/$prog_copy")"
"$UTRACE" extract -o q.dat 2>ex.err || fail "extract: $(cat ex.err)"
expect_eq "copies pruned with the sessions" "" "$(ls -A run | grep '^\.syms-')"
"$UTRACE" reset
finish
