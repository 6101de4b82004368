#!/bin/bash
# -O inlined, live (issue 16, part 4): four threads run an inlined
# instance (edge_spin in spin_body, tests/progs/inl_edge.c) without pause
# while `utrace start -O inlined` patches its entry (int3, the threads
# between its moved instructions moved to the slot, then the jump); the
# site in the slot is then switched off and on again under them, and an
# instance (start -B) traces the copy by the function's name.  The
# program runs to its end, the instance's calls are in the buffers with
# the function holding it as their parent, and nothing crashed.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1 pid i
	rm -rf run in out
	mkfifo in
	: >out
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog inl_edge "$s")" spin 4 <in >out 2>err &
	pid=$!
	exec 7>in
	for ((i = 0; i < 500; i++)); do
		grep -q spinning out && break
		sleep 0.01
	done
	"$UTRACE" start -P "$pid" -O inlined -p function -l edge_spin 2>start.err ||
		fail "$s: start exited $?: $(cat start.err)"
	for ((i = 0; i < 50; i++)); do # under load the threads may take a while to run
		"$UTRACE" show -P "$pid" 2>show.err | grep -v '^CPU:' | funcs | sort -u >show.txt
		[ -s show.txt ] && break
		sleep 0.1
	done
	expect "$s: the instance's calls" show.txt <<'EOF2'
edge_spin <-spin_body
EOF2
	# an instance traces the inlined copy as the function it came from
	"$UTRACE" start -B ins -l edge_spin 2>>start.err || fail "$s: start -B exited $?"
	for ((i = 0; i < 50; i++)); do
		"$UTRACE" show -B ins 2>/dev/null | grep -v '^CPU:' | funcs | sort -u >ins.txt
		[ -s ins.txt ] && break
		sleep 0.1
	done
	expect "$s: in an instance" ins.txt <<'EOF2'
edge_spin <-spin_body
EOF2
	"$UTRACE" reset -B ins >/dev/null 2>&1
	for ((i = 0; i < 3; i++)); do # the slot's site off and on, under the threads
		"$UTRACE" start -P "$pid" -p nop 2>>start.err || fail "$s: start nop exited $?"
		"$UTRACE" start -P "$pid" -p function 2>>start.err || fail "$s: start function exited $?"
	done
	echo go >&7
	wait "$pid"
	expect_eq "$s: exit status" 0 $?
	exec 7>&-
	expect "$s: output" out <<'EOF2'
spinning
spun ok
EOF2
	no_crash err start.err show.err
	"$UTRACE" reset >/dev/null 2>&1
}
for_styles one
finish
