#!/bin/bash
# Lossless record never hangs the program on a recorder that is gone: a
# writer waits for the recorder only while its heartbeat is fresh.  The
# recorder, slowed on purpose, is killed with SIGKILL mid-run: the program
# still runs to its end (its waits give up, then it drops and counts, as the
# buffer header says).  Stopped with SIGSTOP until the program has ended,
# then continued: the record completes and says what was lost, and why (its
# threads gave up on a recorder silent for longer than they wait).
. "$(dirname "$0")/../lib/common.sh"

P=$(prog single gcc-pfe)
export UTRACE_TEST_DRAIN_DELAY_US=300000

# word N (8 bytes) of a file, unsigned decimal
word() { od -An -tu8 -j $(($2 * 8)) -N8 "$1" | tr -d ' '; }

# "PID RUNDIR BUF": the program record $1 runs, once a buffer of it waited.
program_waiting() {
	local i child= dir= buf=
	# (until record's child has exec'ed the program, its environ is record's)
	for i in $(seq 600); do
		child=$(cat /proc/$1/task/*/children 2>/dev/null | awk '{print $1}')
		[ -n "$child" ] &&
			dir=$(tr '\0' '\n' </proc/$child/environ 2>/dev/null | sed -n 's/^UTRACE_DIR=//p')
		[ -n "$dir" ] && break
		sleep 0.05
	done
	[ -n "$dir" ] || return 1
	for i in $(seq 600); do
		buf=$(ls "$dir"/*/buf.0 2>/dev/null | head -1)
		# struct ut_buf_hdr's word 13: waits
		[ -n "$buf" ] && [ "$(word "$buf" 13)" -gt 0 ] && break
		buf=
		sleep 0.05
	done
	echo "$child $dir $buf"
}

# SIGKILL
"$UTRACE" record -b 4 -o k.dat -- "$P" 20000 >k.out 2>k.err &
rec=$!
read -r child dir buf < <(program_waiting $rec)
[ -n "$buf" ] || fail "no writer waited for the slowed recorder"
kill -KILL $rec
wait $rec 2>/dev/null
ended "$child" || fail "the program did not end after its recorder was killed"
expect "killed: the program's output" k.out <<'EOF'
single 400020001
EOF
if [ -n "$buf" ]; then
	# words 10: dropped, 15: stuck_tail (a wait gave up)
	[ "$(word "$buf" 10)" -gt 0 ] || fail "killed: nothing dropped"
	[ "$(word "$buf" 15)" -gt 0 ] || fail "killed: no wait gave up"
fi
case $dir in /dev/shm/utrace-*/rec.*) rm -rf "$dir" ;; esac

# SIGSTOP until the program has ended, then SIGCONT
"$UTRACE" record -b 4 -o s.dat -- "$P" 20000 >s.out 2>s.err &
rec=$!
read -r child dir buf < <(program_waiting $rec)
[ -n "$buf" ] || fail "stop: no writer waited for the slowed recorder"
kill -STOP $rec
ended "$child" || fail "the program did not end while its recorder was stopped"
kill -CONT $rec
wait $rec
expect_eq "stopped: record's status" 0 $?
expect "stopped: the program's output" s.out <<'EOF'
single 400020001
EOF
grep -qE '^utrace: [0-9]+ events lost' s.err || fail "stopped: no loss said: $(cat s.err)"
# why: the wait gave up on a recorder silent past the limit, and for how long
# it was (stopped for over a second here), not "buffers full, try a larger -b"
grep -qE "^utrace: [0-9]+ events lost: 1 of the program's threads stopped waiting for the \
recorder, silent for over 1 s \(its longest pause between passes: [1-9][0-9]*\.[0-9] s\), and \
dropped events until it drained their buffers again$" s.err ||
	fail "stopped: the loss's cause is not said: $(cat s.err)"
grep -q 'try a larger -b' s.err && fail "stopped: a larger -b suggested: $(cat s.err)"
e=$(report s.dat | sed -n 3p | sed -E 's/.*: ([0-9]+)\/.*/\1/')
l=$(sed -nE 's/^utrace: ([0-9]+) events lost.*/\1/p' s.err)
expect_eq "stopped: in buffer + lost" 60003 $((e + l))
no_crash k.err s.err s.dat.rerr
finish
