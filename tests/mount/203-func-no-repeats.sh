#!/bin/bash
# options/func-no-repeats (SPEC §12; issue 10 item 6): consecutive calls of
# one function from one place print once, then a func_repeats line
# "FUNC <-PARENT (repeats: N, last_ts: T)" before the thread's next
# different call, in trace and in trace_pipe; off again, every call prints.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
cd "$MNT" || exit 1

echo 'handle_request tlib_mul' >set_ftrace_filter
echo function >current_tracer
expect_eq "default" 0 "$(cat options/func-no-repeats)"
echo 1 >options/func-no-repeats
expect_eq "set" 1 "$(cat options/func-no-repeats)"
check "trace_options" grep -qx func-no-repeats trace_options
run_req s1 3
send s1 "lib 1"
wait_for s1 '^lib 1 '
# last_ts is the third call's time: the first line's is the first call's
first=$(events <trace | head -n 1 | sed -E 's/.* ([0-9]+\.[0-9]{6}): .*/\1/')
events <trace | mask | sed -E 's/last_ts: +[0-9]+\.[0-9]{6}\)/last_ts: <TS>)/' >"$TOP/t.txt"
expect "folded" "$TOP/t.txt" <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: handle_request <-main
server-<PID> [<CPU>] ..... <TS>: handle_request <-main (repeats: 2, last_ts: <TS>)
server-<PID> [<CPU>] ..... <TS>: tlib_mul <-main
EOF2
# the kernel counts the func_repeats event, not the folded calls
check "header counts" grep -q '^# entries-in-buffer/entries-written: 3/3 ' trace
last=$(events <trace | sed -n 2p | sed -E 's/.*last_ts: +([0-9]+\.[0-9]{6})\)$/\1/')
check "last_ts not before the first call" awk -v a="$first" -v b="$last" 'BEGIN { exit !(b >= a) }'
echo 0 >options/func-no-repeats
expect_eq "off: every call" 4 "$(events <trace | wc -l)"
# trace_pipe folds too (the second tlib_mul is still pending at the end)
echo 1 >options/func-no-repeats
echo >trace
run_req s1 2
send s1 "lib 2"
wait_for s1 '^lib 2 '
timeout 2 cat trace_pipe >"$TOP/p.txt"
mask <"$TOP/p.txt" | sed -E 's/last_ts: +[0-9]+\.[0-9]{6}\)/last_ts: <TS>)/' >"$TOP/p2.txt"
expect "trace_pipe" "$TOP/p2.txt" <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: handle_request <-main
server-<PID> [<CPU>] ..... <TS>: handle_request <-main (repeats: 1, last_ts: <TS>)
server-<PID> [<CPU>] ..... <TS>: tlib_mul <-main
EOF2
alive
finish
