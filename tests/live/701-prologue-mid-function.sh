#!/bin/bash
# -O patch-prologue, live, with a thread inside the bytes being moved: the
# thread of tests/progs/prologue/prep.c is nearly always in the `rep
# stosb` that is slow_fill's third instruction (E + 5) when `utrace start`
# patches slow_fill.  The installer's signal moves it to the same
# instruction in the slot, where it finishes its fill; left in place it
# would run the patch's `jmp slot` (the process died of SIGILL so when the
# installer skipped that step).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local v=$1 pid i n
	rm -rf run in out
	mkfifo in
	: >out
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog prep "$v")" <in >out 2>err &
	pid=$!
	exec 7>in
	for ((i = 0; i < 500; i++)); do
		grep -q ready out && break
		sleep 0.01
	done
	"$UTRACE" start -P "$pid" -O patch-prologue -p function -l slow_fill 2>start.err ||
		fail "$v: start exited $?: $(cat start.err)"
	for ((i = 0; i < 100; i++)); do
		n=$("$UTRACE" show -P "$pid" 2>/dev/null | grep -c ' slow_fill <-')
		[ "$n" -gt 0 ] && break
		sleep 0.05
	done
	[ "$n" -gt 0 ] || fail "$v: no slow_fill call traced"
	echo go >&7
	wait "$pid"
	expect_eq "$v exit status" 0 $?
	exec 7>&-
	expect "$v output" out <<'EOF'
ready
canary intact
EOF
	no_crash err start.err
}

for v in gcc-pie-cf clang-nopie; do
	one "$v"
done
finish
