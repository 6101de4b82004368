#!/bin/bash
# Process events enabled live (issue 13): `utrace start -e
# 'sched:sched_process_*'` in a running server, then
# its forks show in `utrace show` with the kernel's fields;
# `start -e sched:nosuch` is refused (exit 2) and changes nothing.
. "$(dirname "$0")/../lib/common.sh"
export UTRACE_DIR=$PWD/run

rm -f in.fifo
mkfifo in.fifo
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog server gcc-pfe)" <in.fifo >out.txt 2>err.txt &
pid=$!
exec 7>in.fifo
trap 'exec 7>&-; kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null' EXIT
# cmd LINE REGEX: send it, wait for a reply line matching REGEX
cmd() {
	echo "$1" >&7
	for ((i = 0; i < 1000; i++)); do
		grep -qE "$2" out.txt && return 0
		sleep 0.01
	done
	fail "no reply to '$1'"
}
cmd ping '^pong$'

"$UTRACE" start -P "$pid" -e 'sched:sched_process_*' 2>start.err || fail "start -e exited $?: $(cat start.err)"
cmd "forks 1 0" '^forked 1 '
"$UTRACE" show -P "$pid" 2>show.err | events | mask | sed -E -e "s/\\b$pid\\b/P/g" -e 's/child_pid=[0-9]+/child_pid=C/' -e 's/(free|wait): (.*) pid=[0-9]+/\1: \2 pid=C/' >show.txt
expect "show: the fork, and the reap of the child" show.txt <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: sched_process_fork: comm=server.gcc-pfe pid=P child_comm=server.gcc-pfe child_pid=C
server-<PID> [<CPU>] ..... <TS>: sched_process_wait: comm=server.gcc-pfe pid=C prio=120
server-<PID> [<CPU>] ..... <TS>: sched_process_free: comm=server.gcc-pfe pid=C prio=120
EOF2
grep -q '^# tracer: nop' <("$UTRACE" show -P "$pid" 2>/dev/null) || fail "start -e alone does not leave the nop tracer"

"$UTRACE" start -P "$pid" -e sched:nosuch 2>bad.err
expect_eq "unknown event: exit status" 2 "$?"
expect "unknown event: message" bad.err <<'EOF2'
utrace: set_event: 'sched:nosuch' names no USDT probe of the traced processes
EOF2
echo ping >&7
alive=$(kill -0 "$pid" 2>/dev/null && echo yes)
expect_eq "the server lives" yes "$alive"
finish
