#!/bin/bash
# instances/ (SPEC: mkdir/rmdir give an independent buffer and
# configuration): an instance's function tracer and filter run beside the
# top level's, in every process, with their own trace and trace_pipe;
# function_graph is refused in instances; rmdir turns it off everywhere.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
cd "$MNT" || exit 1

check "mkdir" mkdir instances/foo
expect_eq "listed" foo "$(ls instances)"
ls instances/foo >"$TOP/files.txt"
expect "instance files" "$TOP/files.txt" <<'EOF2'
available_tracers
buffer_size_kb
buffer_total_size_kb
current_tracer
error_log
options
set_ftrace_filter
set_ftrace_notrace
set_ftrace_pid
snapshot
trace
trace_clock
trace_marker
trace_options
trace_pipe
tracing_on
EOF2
expect_eq "instance tracers" "function nop" "$(cat instances/foo/available_tracers)"
expect_eq "starts off" nop "$(cat instances/foo/current_tracer)"
expect_eq "no function_graph" EINVAL "$(w instances/foo/current_tracer function_graph)"
expect_eq "mkdir twice" 1 "$(mkdir instances/foo 2>/dev/null; echo $?)"

echo handle_request >set_ftrace_filter
echo function >current_tracer
echo parse_header >instances/foo/set_ftrace_filter
echo function >instances/foo/current_tracer
run_req s1 1
events <trace | sed -E 's/^.*: //' >"$TOP/top.txt"
expect "top level: its own filter" "$TOP/top.txt" <<'EOF2'
handle_request <-main
EOF2
events <instances/foo/trace | sed -E 's/^.*: //' >"$TOP/foo.txt"
expect "instance: its own filter" "$TOP/foo.txt" <<'EOF2'
parse_header <-parse_request
parse_header <-parse_request
EOF2

# its own tracing_on and clear
echo 0 >instances/foo/tracing_on
run_req s1 1
expect_eq "instance stopped" 2 "$(events <instances/foo/trace | wc -l)"
expect_eq "top still on" 2 "$(events <trace | wc -l)"
echo 1 >instances/foo/tracing_on
echo >instances/foo/trace
expect_eq "instance cleared" 0 "$(events <instances/foo/trace | wc -l)"
expect_eq "top not cleared" 2 "$(events <trace | wc -l)"

# a process started later picks the instance up
start_server s2
run_req s2 1
expect_eq "new process in the instance" 2 "$(events <instances/foo/trace | grep -c -- "-$(pid_of s2) ")"

check "rmdir" rmdir instances/foo
expect_eq "gone" "" "$(ls instances)"
run_req s1 1
expect_eq "top level unaffected" 4 "$(events <trace | grep -c handle_request)"
expect_eq "mkdir elsewhere" 1 "$(mkdir processes/x 2>/dev/null; echo $?)"
alive
finish
