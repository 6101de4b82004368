#!/bin/bash
# Processes that end: one exits while a shell sits in its directory and a
# reader waits in its trace_pipe; one is killed by SIGKILL.  Their traces
# stay readable under processes/PID/, their pipes end (EOF) instead of
# hanging, writes say ESRCH, and the daemon neither hangs nor crashes.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
start_server s2
P1=$(pid_of s1)
P2=$(pid_of s2)
cd "$MNT" || exit 1
echo parse_noise >set_ftrace_filter
echo function >current_tracer

run_req s1 2
cd processes/$P1 || exit 1
timeout 10 cat trace_pipe >"$TOP/pipe.txt" &
reader=$!
run_req s1 1
send s1 quit
wait "$(pid_of s1)" 2>/dev/null
wait "$reader"
expect_eq "pipe ends at exit (no hang)" 0 $?
expect_eq "pipe got every event" 3 "$(wc -l <"$TOP/pipe.txt")"
# still readable from inside the directory
check "cwd listing" test -f ./trace
expect_eq "trace after exit" 0 "$(grep -vc '^#' trace)"
expect_eq "tracer" function "$(cat current_tracer)"
expect_eq "write to an exited process" ESRCH "$(w set_ftrace_filter parse_header)"
expect_eq "tracer write" ESRCH "$(w current_tracer nop)"
expect_eq "pipe of a dead process: EOF" 0 "$(timeout 5 cat trace_pipe | wc -l)"
cd "$MNT" || exit 1
check "still listed" test -d processes/$P1
alive

# SIGKILL: the buffers survive
run_req s2 2
send s2 crash
wait "$(pid_of s2)" 2>/dev/null
check "killed process listed" test -d processes/$P2
funcs <processes/$P2/trace >"$TOP/killed.txt"
expect "trace of the killed process" "$TOP/killed.txt" <<'EOF2'
parse_noise <-parse_request
parse_noise <-parse_request
EOF2
expect_eq "top trace has it" 2 "$(grep -c "server.gcc-pfe-$P2 " trace)"
expect_eq "saved_cmdlines" "$P2 server.gcc-pfe" "$(cat processes/$P2/saved_cmdlines)"
check "available_filter_functions of the dead" grep -qx parse_noise processes/$P2/available_filter_functions
# top-level writes skip the dead processes
echo parse_header >set_ftrace_filter
expect_eq "top write with only dead processes" parse_header "$(cat set_ftrace_filter)"
expect_eq "dead process keeps its filter" parse_noise "$(cat processes/$P2/set_ftrace_filter)"
# the buffers of the killed one can be emptied
echo >processes/$P2/trace
expect_eq "cleared" 0 "$(grep -vc '^#' processes/$P2/trace)"
# a session removed under an open directory: errors, no crash
cd processes/$P2 || exit 1
"$UTRACE" reset -P "$P2" 2>/dev/null || rm -rf "$UTRACE_DIR"/"$P2".*
expect_eq "removed session: trace" ENOENT "$(werr cat trace)"
cd "$MNT" || exit 1
check "gone from processes/" test ! -e processes/$P2
alive
finish
