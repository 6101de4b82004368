#!/bin/bash
# Lossless record of a program that makes 10,000 short threads while its
# recorder passes over the rings only every 1.5 s
# (UTRACE_TEST_DRAIN_DELAY_US): all 4,096 thread slots fill with exited
# threads' data before the recorder comes back, and each new thread waits
# for it (libutrace/slots.c pick_waiting) -- its beats are stale, but the
# process that beat them runs.  Every call is in the trace.  Before, a
# claim waited a second in all and then gave the oldest exited slot to the
# new thread: 209,370 events lost here, and 4,347 in an ASan CI run of
# record/520, whose recorder was merely slow.
# Then the recorder stopped (SIGSTOP) from the program's start to its end:
# a stopped recorder is gone for the claims, so the program never waits,
# new threads take the oldest exited slots, and record, continued, says
# apart what that lost.
. "$(dirname "$0")/../lib/common.sh"

export UTRACE_TEST_DRAIN_DELAY_US=1500000

record c.dat -p function -- "$(prog threadchurn gcc-pfe)" 10000 10 || fail "record exited $?"
expect "stdout" c.dat.out <<'EOF2'
threadchurn 10000 threads total 1100000
EOF2
grep -E 'lost|not traced' c.dat.err && fail "record warned: $(cat c.dat.err)"
report c.dat | count_funcs >c.txt
expect "function counts" c.txt <<'EOF2'
c_done 1
c_leaf 100000
c_thread 10000
c_work 100000
main 1
EOF2
no_crash c.dat.err c.dat.rerr

# the child record $1 runs, once it has exec'ed the program (its comm)
program_of() {
	local i child
	for i in $(seq 600); do
		child=$(cat /proc/$1/task/*/children 2>/dev/null | awk '{print $1}')
		[ -n "$child" ] && [ "$(cat /proc/$child/comm 2>/dev/null)" = threadchurn.gcc ] &&
			echo "$child" && return 0
		sleep 0.01
	done
	return 1
}
export UTRACE_TEST_DRAIN_DELAY_US=3000000 # no pass before the stop
"$UTRACE" record -o s.dat -p function -- "$(prog threadchurn gcc-pfe)" 10000 10 \
	>s.dat.out 2>s.dat.err &
rec=$!
child=$(program_of $rec) || fail "the program did not start"
kill -STOP $rec
ended "$child" || fail "the program waited for a stopped recorder"
kill -CONT $rec
wait $rec || fail "stopped: record exited $?"
expect "stopped: stdout" s.dat.out <<'EOF2'
threadchurn 10000 threads total 1100000
EOF2
sed -E 's/^utrace: [0-9]+ events/utrace: N events/' s.dat.err >e.txt
expect "stopped: the losses said" e.txt <<'EOF2'
utrace: N events lost: exited threads' buffers were given to new threads before the recorder took them (all 4096 thread slots were taken, and the recorder was gone, stopped, or silent for over 10 s)
EOF2
no_crash s.dat.err
finish
