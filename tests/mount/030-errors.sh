#!/bin/bash
# Bad input gets the kernel's errno and changes nothing (SPEC §2-3, §12):
# unknown tracer/clock/option, bad numbers, a filter word that matches no
# function (at the top level and in processes/PID/), read-only files,
# unknown files; error_log says why a filter was refused.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

{
	echo "current_tracer junk: $(w current_tracer junk) -> $(cat current_tracer)"
	echo "current_tracer blk: $(w current_tracer blk) -> $(cat current_tracer)"
	echo "current_tracer '  function  ': $(w current_tracer '  function  ') -> $(cat current_tracer)"
	echo "tracing_on -1: $(w tracing_on -1) -> $(cat tracing_on)"
	echo "tracing_on abc: $(w tracing_on abc) -> $(cat tracing_on)"
	echo "tracing_on ' 1': $(w tracing_on ' 1') -> $(cat tracing_on)"
	echo "tracing_on '': $(w tracing_on '') -> $(cat tracing_on)"
	echo "tracing_on 0x1: $(w tracing_on 0x1) -> $(cat tracing_on)"
	echo "tracing_on 2: $(w tracing_on 2) -> $(cat tracing_on)"
	echo "max_graph_depth x: $(w max_graph_depth x) -> $(cat max_graph_depth)"
	echo "tracing_thresh -1: $(w tracing_thresh -1) -> $(cat tracing_thresh)"
	echo "buffer_size_kb 0: $(w buffer_size_kb 0) -> $(cat buffer_size_kb)"
	echo "trace_clock [global]: $(w trace_clock '[global]') -> $(cat trace_clock)"
	echo "trace_clock tai: $(w trace_clock tai)"
	echo "trace_options bogus: $(w trace_options bogus)"
	echo "trace_options 'sym-offset sym-addr': $(w trace_options 'sym-offset sym-addr')"
	echo "options/overwrite 2: $(w options/overwrite 2) -> $(cat options/overwrite)"
	echo "options/bogus: $(w options/bogus 1)"
	echo "set_ftrace_pid abc: $(w set_ftrace_pid abc) -> $(cat set_ftrace_pid)"
	echo "set_ftrace_pid -1: $(a set_ftrace_pid -1) -> $(cat set_ftrace_pid)"
	echo "available_tracers: $(w available_tracers function)"
	echo "buffer_total_size_kb: $(w buffer_total_size_kb 1)"
	echo "trace_pipe: $(w trace_pipe x)"
	echo "mkdir: $(werr mkdir newdir)"
	echo "rm: $(werr rm -f trace)"
	echo "cat nosuch: $(werr cat nosuch)"
	echo "cat processes/PID/nosuch: $(werr cat processes/$P/nosuch)"
} >"$TOP/errors.txt" 2>&1
expect "errors" "$TOP/errors.txt" <<'EOF2'
current_tracer junk: EINVAL -> nop
current_tracer blk: EINVAL -> nop
current_tracer '  function  ': OK -> function
tracing_on -1: EINVAL -> 1
tracing_on abc: EINVAL -> 1
tracing_on ' 1': EINVAL -> 1
tracing_on '': EINVAL -> 1
tracing_on 0x1: EINVAL -> 1
tracing_on 2: OK -> 1
max_graph_depth x: EINVAL -> 0
tracing_thresh -1: EINVAL -> 0
buffer_size_kb 0: EINVAL -> 1408
trace_clock [global]: EINVAL -> [local] global counter uptime perf mono mono_raw boot x86-tsc
trace_clock tai: EINVAL
trace_options bogus: EINVAL
trace_options 'sym-offset sym-addr': EINVAL
options/overwrite 2: EINVAL -> 1
options/bogus: EACCES
set_ftrace_pid abc: EINVAL -> no pid
set_ftrace_pid -1: EINVAL -> no pid
available_tracers: EINVAL
buffer_total_size_kb: EINVAL
trace_pipe: EINVAL
mkdir: EPERM
rm: EPERM
cat nosuch: ENOENT
cat processes/PID/nosuch: ENOENT
EOF2

# A word matching nothing: EINVAL, and the filter stays what it was.
echo 'parse_*' >set_ftrace_filter
expect_eq "nosuchfunc at the top" EINVAL "$(w set_ftrace_filter nosuchfunc)"
expect_eq "filter unchanged" "parse_header parse_noise parse_request" "$(cat set_ftrace_filter | tr '\n' ' ' | sed 's/ $//')"
expect_eq ">> nosuchfunc" EINVAL "$(a set_ftrace_filter nosuchfunc)"
expect_eq "filter unchanged (>>)" 3 "$(wc -l <set_ftrace_filter)"
expect_eq "process filter unchanged" 3 "$(wc -l <processes/$P/set_ftrace_filter)"
sed -n 1,3p error_log | sed -E 's/^\[ *[0-9]+\.[0-9]+\]/[<TS>]/' >"$TOP/errlog.txt"
expect "error_log" "$TOP/errlog.txt" <<'EOF2'
[<TS>] utrace: error: set_ftrace_filter: 'nosuchfunc' matches no traceable function
  Command: nosuchfunc
           ^
EOF2
echo foo >error_log
expect_eq "error_log cleared by O_TRUNC" 0 "$(wc -c <error_log)"

# the same in the process's own directory
cd "processes/$P" || exit 1
expect_eq "process: nosuchfunc" EINVAL "$(w set_ftrace_filter 'parse_noise nosuchfunc')"
expect_eq "process: filter unchanged" 3 "$(wc -l <set_ftrace_filter)"
check "process error_log names the word" grep -q "'nosuchfunc'" error_log
expect_eq "process: junk tracer" EINVAL "$(w current_tracer junk)"
expect_eq "process: tracer unchanged" function "$(cat current_tracer)"
expect_eq "process: graph word" EINVAL "$(w set_graph_function nosuchfunc)"
expect_eq "process: graph unchanged" "#### all functions enabled ####" "$(cat set_graph_function)"
expect_eq "process: unknown command" EINVAL "$(w set_ftrace_filter 'parse_noise:bogus')"
# a command is accepted and listed after the functions
expect_eq "process: traceoff command" OK "$(a set_ftrace_filter 'parse_noise:traceoff:1')"
check "command listed" grep -qx 'parse_noise:traceoff:count=1' set_ftrace_filter
cd "$MNT" || exit 1

# the daemon is fine after all of it; the traced program too
alive
run_req s1 1
finish
