#!/bin/bash
# 1000 tracer switches through the tracefs (current_tracer, set_ftrace_filter,
# set_graph_function, tracing_on, as ftracetest does) on a process whose 4
# threads hammer traced functions the whole time: every write succeeds, the
# program's output is the same as untraced, nothing crashes or hangs.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT/processes/$P" || exit 1

send s1 "hammer 20000"
wait_for s1 '^hammered '
want=$(grep '^hammered ' "$TOP/s1.out")
send s1 "hammer 3000000"
bad=0
for ((i = 0; i < 1000; i++)); do
	case $((i % 5)) in
	0) echo function >current_tracer ;;
	1) echo st_leaf >set_ftrace_filter ;;
	2) echo function_graph >current_tracer ;;
	3) echo st_step >set_graph_function ;;
	4) echo nop >current_tracer && echo >set_ftrace_filter && echo >set_graph_function ;;
	esac || bad=$((bad + 1))
	[ $((i % 100)) = 50 ] && { echo 0 >tracing_on; echo 1 >tracing_on; }
done
expect_eq "every write succeeded" 0 "$bad"
for ((i = 0; i < 6000; i++)); do
	[ "$(grep -c '^hammered ' "$TOP/s1.out")" -ge 2 ] && break
	sleep 0.01
done
cat trace >/dev/null || fail "trace unreadable after the switches"
send s1 "hammer 20000"
for ((i = 0; i < 1000; i++)); do
	[ "$(grep -c '^hammered ' "$TOP/s1.out")" -ge 3 ] && break
	sleep 0.01
done
expect_eq "same result as untraced" "$want" "$(grep '^hammered ' "$TOP/s1.out" | tail -1)"
[ -s "$TOP/s1.err" ] && fail "program stderr: $(cat "$TOP/s1.err")"
alive
finish
