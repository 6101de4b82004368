#!/bin/bash
# Top-level writes to the filter lists reach every process and the template
# but leave each process's other settings alone (its own tracer); words
# matching nothing anywhere are EINVAL with every process unchanged.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo function_graph >processes/$P/current_tracer
echo 2 >processes/$P/max_graph_depth
echo 'parse_*' >set_ftrace_filter
expect_eq "process tracer kept" function_graph "$(cat processes/$P/current_tracer)"
expect_eq "process depth kept" 2 "$(cat processes/$P/max_graph_depth)"
expect_eq "template tracer" nop "$(cat current_tracer)"
expect_eq "process filter" 3 "$(grep -c '^parse_' processes/$P/set_ftrace_filter)"
expect_eq "nothing matches anywhere" EINVAL "$(w set_ftrace_filter nosuch_function_anywhere)"
expect_eq "process filter unchanged" 3 "$(grep -c '^parse_' processes/$P/set_ftrace_filter)"
expect_eq "process tracer still" function_graph "$(cat processes/$P/current_tracer)"
alive
finish
