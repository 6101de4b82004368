#!/bin/bash
# Triggers on process events (issue 13): the kernel's self-tests' uses on
# sched_process_fork work here on a traced server's real forks: traceoff
# and traceon (the event need not be enabled: its trigger arms it),
# `if FILTER` on the kernel's field names (child_pid, parent_pid,
# common_pid), stacktrace (a <stack trace> after the event), and
# enable_event from a process event to another (soft mode: 0* then 1*).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s
S=$(pid_of s)
cd "$MNT" || exit 1
F=events/sched/sched_process_fork/trigger
forks() { send s "forks $1 0"; wait_for s "^forked $1 "; }

expect_eq "traceoff" OK "$(w $F traceoff)"
expect_eq "read" "traceoff:unlimited" "$(cat $F)"
expect_eq "fork armed, not enabled" "0*" "$(cat events/sched/sched_process_fork/enable)"
forks 1
expect_eq "a fork turned tracing off" 0 "$(cat tracing_on)"
expect_eq "remove" OK "$(a $F '!traceoff')"
expect_eq "traceon" OK "$(w $F traceon)"
forks 2
expect_eq "a fork turned it on" 1 "$(cat tracing_on)"
expect_eq "remove traceon" OK "$(a $F '!traceon')"

expect_eq "a filter naming the kernel's field" OK "$(w $F 'traceoff if child_pid == 0')"
forks 3
expect_eq "child_pid is never 0: still on" 1 "$(cat tracing_on)"
expect_eq "remove" OK "$(a $F '!traceoff')"
expect_eq "a filter on parent_pid" OK "$(w $F "traceoff if parent_pid == $S && child_pid > 0")"
forks 4
expect_eq "it matched: off" 0 "$(cat tracing_on)"
expect_eq "remove" OK "$(a $F '!traceoff')"
echo 1 >tracing_on
expect_eq "a field no event has" EINVAL "$(w $F 'traceoff if a')"
expect_eq "common_pid == child_pid" EINVAL "$(w $F 'traceoff if common_pid == child_pid')"

expect_eq "stacktrace" OK "$(w $F stacktrace)"
expect_eq "enable fork" OK "$(w events/sched/sched_process_fork/enable 1)"
echo >trace
forks 5
grep -v '^#' trace >"$TOP/st.txt"
expect_eq "the fork, then its stack" "sched_process_fork <stack trace>" \
	"$(grep -oE 'sched_process_fork|<stack trace>' "$TOP/st.txt" | head -n 2 | tr '\n' ' ' | sed 's/ $//')"
expect_eq "the stack starts where the program called fork()" "=> main" "$(grep -m1 '^ *=> ' "$TOP/st.txt" | sed 's/^ *//')"
expect_eq "remove" OK "$(a $F '!stacktrace')"
expect_eq "disable fork" OK "$(w events/sched/sched_process_fork/enable 0)"

expect_eq "enable_event from fork to exit" OK "$(w $F 'enable_event:sched:sched_process_free')"
expect_eq "the target armed" "0*" "$(cat events/sched/sched_process_free/enable)"
echo >trace
forks 6
expect_eq "soft-enabled by the fork" "1*" "$(cat events/sched/sched_process_free/enable)"
expect_eq "the reaps recorded, from the first fork on" 6 "$(grep -v '^#' trace | grep -c 'sched_process_free: ')"
expect_eq "remove" OK "$(a $F '!enable_event:sched:sched_process_free')"
alive
finish
