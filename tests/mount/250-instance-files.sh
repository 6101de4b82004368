#!/bin/bash
# instances/NAME/ has what the kernel's instances have (SPEC §1,
# 51_instances.txt) for a function tracer: its own trace_clock,
# trace_marker, set_ftrace_pid, trace_options and options/, error_log;
# its set_ftrace_filter's function commands act on it (stacktrace into its
# buffer, traceoff on its tracing_on); its trace header names its tracer
# (nop after nop); function_graph is refused with EINVAL and not listed.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
start_server s2
P1=$(pid_of s1)
P2=$(pid_of s2)
cd "$MNT" || exit 1

check "mkdir" mkdir instances/foo
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
expect_eq "tracers" "function nop" "$(cat instances/foo/available_tracers)"
expect_eq "function_graph refused" EINVAL "$(w instances/foo/current_tracer function_graph)"
expect_eq "still nop" nop "$(cat instances/foo/current_tracer)"

# --- the header names the instance's tracer
echo parse_header >instances/foo/set_ftrace_filter
echo function >instances/foo/current_tracer
run_req s1 1
expect_eq "header: function" "# tracer: function" "$(head -n 1 instances/foo/trace)"
echo nop >instances/foo/current_tracer
expect_eq "header: nop" "# tracer: nop" "$(head -n 1 instances/foo/trace)"
expect_eq "nop empties it" 0 "$(events <instances/foo/trace | wc -l)"

# --- trace_clock: its own, the top level's unchanged
expect_eq "clock" "[local] global counter uptime perf mono mono_raw boot x86-tsc" \
	"$(cat instances/foo/trace_clock)"
echo function >instances/foo/current_tracer
echo counter >instances/foo/trace_clock
expect_eq "clock set" "local global [counter] uptime perf mono mono_raw boot x86-tsc" \
	"$(cat instances/foo/trace_clock)"
expect_eq "top clock" "[local] global counter uptime perf mono mono_raw boot x86-tsc" \
	"$(cat trace_clock)"
expect_eq "bad clock" EINVAL "$(w instances/foo/trace_clock nosuch)"
echo handle_request >set_ftrace_filter
echo function >current_tracer
run_req s1 1
# counter timestamps are plain counts (no decimal point), the top's are not
events <instances/foo/trace | sed -E 's/^ *[^ ]+ +\[[0-9]+\] [^ ]+ +//' | sed -E 's/^[0-9]+: /<N>: /' >"$TOP/clk.txt"
expect "counter clock in the instance" "$TOP/clk.txt" <<'EOF2'
<N>: parse_header <-parse_request
<N>: parse_header <-parse_request
EOF2
funcs <trace >"$TOP/top.txt"
expect "top level in its own clock" "$TOP/top.txt" <<'EOF2'
handle_request <-main
EOF2
echo local >instances/foo/trace_clock
expect_eq "clock change empties it" 0 "$(events <instances/foo/trace | wc -l)"

# --- trace_marker: into the instance's buffer only
echo "into foo" >instances/foo/trace_marker
echo "into top" >trace_marker
funcs <instances/foo/trace >"$TOP/m.txt"
expect "instance marker" "$TOP/m.txt" <<'EOF2'
tracing_mark_write: into foo
EOF2
expect_eq "not at the top" 0 "$(grep -c 'into foo' trace)"
expect_eq "in its trace_pipe" "tracing_mark_write: into foo" \
	"$(timeout 1 cat instances/foo/trace_pipe | funcs)"
expect_eq "marker mode" "--w--w----" "$(stat -c %A instances/foo/trace_marker)"
echo 0 >instances/foo/tracing_on
expect_eq "marker while off" EBADF "$(werr bash -c 'echo x >instances/foo/trace_marker' 2>&1 | sed 's/FAILED: .*Bad file descriptor.*/EBADF/')"
echo 1 >instances/foo/tracing_on
echo 0 >instances/foo/options/markers
expect_eq "markers=0" EINVAL "$(w instances/foo/trace_marker x)"
echo 1 >instances/foo/options/markers
echo >instances/foo/trace

# --- set_ftrace_pid: its own
expect_eq "no pid" "no pid" "$(cat instances/foo/set_ftrace_pid)"
echo "$P2" >instances/foo/set_ftrace_pid
expect_eq "pid" "$P2" "$(cat instances/foo/set_ftrace_pid)"
expect_eq "top: no pid" "no pid" "$(cat set_ftrace_pid)"
expect_eq "bad pid" EINVAL "$(w instances/foo/set_ftrace_pid x1)"
run_req s1 1
run_req s2 1
expect_eq "only s2 in the instance" "2 2" "$(events <instances/foo/trace | grep -c -- "-$P2 ") $(events <instances/foo/trace | wc -l)"
expect_eq "both at the top" 3 "$(events <trace | grep -c handle_request)"
echo >instances/foo/set_ftrace_pid
expect_eq "pid cleared" "no pid" "$(cat instances/foo/set_ftrace_pid)"
# one buffer per thread that wrote into the instance (2048 KiB: 1408 rounded up)
expect_eq "total size" 4096 "$(cat instances/foo/buffer_total_size_kb)"
echo >instances/foo/trace

# --- function commands of the instance: stacktrace into its buffer
echo 'parse_header:stacktrace:1' >>instances/foo/set_ftrace_filter
run_req s1 1
mask <instances/foo/trace | events | sed -E '/^ => /{/^ => (parse_header|parse_request|handle_request|main)$/!d}' >"$TOP/st.txt"
expect "instance stacktrace" "$TOP/st.txt" <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: <stack trace>
 => parse_header
 => parse_request
 => handle_request
 => main
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
EOF2
expect_eq "no stack at the top" 0 "$(grep -c 'stack trace' trace)"
check "command listed" grep -q '^parse_header:stacktrace' instances/foo/set_ftrace_filter
# traceoff: the instance's tracing_on, not the top level's
echo 'parse_noise:traceoff' >>instances/foo/set_ftrace_filter
run_req s1 1
expect_eq "instance off" 0 "$(cat instances/foo/tracing_on)"
expect_eq "top still on" 1 "$(cat tracing_on)"
echo 1 >instances/foo/tracing_on
expect_eq "instance on again" 1 "$(cat instances/foo/tracing_on)"
# a process started while the instance is off starts with it off
echo 0 >instances/foo/tracing_on
echo >instances/foo/trace
start_server s3
run_req s3 1
expect_eq "new process: off" 0 "$(events <instances/foo/trace | wc -l)"
echo 1 >instances/foo/tracing_on
run_req s3 1
expect_eq "new process: on" 2 "$(events <instances/foo/trace | grep -c -- "-$(pid_of s3) .*parse_header <-")"

# --- error_log: its own
expect_eq "bad word" EINVAL "$(a instances/foo/set_ftrace_filter nosuchfunc)"
expect_eq "logged in the instance" 1 "$(grep -c "Command: nosuchfunc" instances/foo/error_log)"
expect_eq "not at the top" 0 "$(grep -c "nosuchfunc" error_log)"

# --- options: the instance's own, no top-level-only ones
expect_eq "option file" 0 "$(cat instances/foo/options/sym-offset)"
echo 1 >instances/foo/options/sym-offset
expect_eq "option set" 1 "$(cat instances/foo/options/sym-offset)"
expect_eq "top unchanged" 0 "$(cat options/sym-offset)"
expect_eq "no record-cmd" 1 "$(test -e instances/foo/options/record-cmd; echo $?)"
expect_eq "trace_options" "sym-offset" "$(grep -x sym-offset instances/foo/trace_options)"
expect_eq "trace_options top-only" EINVAL "$(w instances/foo/trace_options norecord-cmd)"
alive
finish
