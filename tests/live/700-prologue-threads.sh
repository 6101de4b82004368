#!/bin/bash
# -O patch-prologue, live: four threads call work() and hash1() (the short
# form: E a jump, the site in the slot) without pause while `utrace start`
# patches them (int3, the threads between its moved
# instructions moved to the slot, the rest of the patch), then turns it off
# and traces marked(): each thread's 1000 calls are all there, and every
# result work() gave was right ("errors 0": no thread ran a half-patched
# function).  (record -P may also find a last work() call of the start
# before in the rings: only marked() is counted.)  The second variant gives
# no -O: start -P and record -P patch a plain program's prologues by
# default, and say so.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local v=$1 pid rec i
	local opt=()
	[ -n "${2:-}" ] && opt=(-O "$2")
	rm -rf run in out
	mkfifo in
	: >out
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog pthreads "$v")" <in >out 2>err &
	pid=$!
	exec 7>in
	for ((i = 0; i < 500; i++)); do
		grep -q ready out && break
		sleep 0.01
	done
	"$UTRACE" start -P "$pid" "${opt[@]}" -p function -l work -l hash1 2>start.err ||
		fail "$v: start exited $?: $(cat start.err)"
	sleep 0.2
	"$UTRACE" record -P "$pid" "${opt[@]}" -p function -l marked -o p.dat >rec.out 2>rec.err &
	rec=$!
	# record -P says so once the process applied its configuration
	# (marked() patched): waiting for the text in run/*/config, then 0.2 s,
	# was short in two loaded full runs
	for ((i = 0; i < 1000; i++)); do
		grep -q "recording process $pid " rec.err && break
		sleep 0.01
	done
	grep -q "recording process $pid (Ctrl-C to stop)" rec.err || fail "$v: record -P said: $(cat rec.err)"
	echo go >&7
	wait "$pid"
	expect_eq "$v exit status" 0 $?
	exec 7>&-
	sleep 0.1
	kill -INT $rec 2>/dev/null
	expect "$v output" out <<'EOF'
ready
errors 0
EOF
	wait $rec || fail "$v: record -P exited $?: $(cat rec.err)"
	report p.dat | grep " marked <-" | task_counts >p.txt
	expect "$v marked per thread" p.txt <<'EOF'
4 marked=1000
EOF
	if [ -z "${2:-}" ]; then
		sed "s/process $pid /process PID /" start.err >note.txt
		expect "$v: the note" note.txt <<'EOF'
utrace: note: process PID has no compiler sites: its functions and its libraries' are traced through patched prologues (-O patch-prologue; -O nopatch-prologue: not)
EOF
		grep -q "note: process $pid has no compiler sites" rec.err ||
			fail "$v: record -P said no note: $(cat rec.err)"
	fi
	no_crash err rec.err start.err
}

one gcc-pie-cf patch-prologue
one clang-nopie
finish
