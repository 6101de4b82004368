#!/bin/bash
# trace_marker: each write is a tracing_mark_write event of the writing
# task, merged in time order with the traced functions; at the top level
# and under processes/PID/; trailing newlines dropped; EBADF while
# tracing_on is 0, EINVAL with options/markers 0 (SPEC §7).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1
echo handle_request >set_ftrace_filter
echo function >current_tracer

run_req s1 1
echo "top level" >trace_marker
run_req s1 1
echo "into $P" >processes/$P/trace_marker
echo -n "no newline" >trace_marker
funcs <trace >"$TOP/m.txt"
expect "markers in order" "$TOP/m.txt" <<EOF2
handle_request <-main
tracing_mark_write: top level
handle_request <-main
tracing_mark_write: into $P
tracing_mark_write: no newline
EOF2
# the writer names the line: this shell (echo is a builtin)
expect_eq "writer" "bash-$$" "$(grep 'top level' trace | awk '{print $1}')"
expect_eq "process trace has its marker" 1 "$(grep -c "tracing_mark_write: into $P" processes/$P/trace)"
expect_eq "process trace: not the top-level one" 0 "$(grep -c 'tracing_mark_write: top level' processes/$P/trace)"
check "writer in saved_cmdlines" grep -qx "$$ bash" saved_cmdlines
check "the mount's markers are no process" test "$(ls processes)" = "$P"
check "no thread of the process" sh -c "! ls processes/$P/per_thread | grep -qx $$"
expect_eq "marker is write-only" "--w--w----" "$(stat -c %A trace_marker)"
expect_eq "read it" EINVAL "$(werr cat trace_marker)"

echo 0 >tracing_on
expect_eq "tracing off" EBADF "$(werr bash -c 'echo x >trace_marker' 2>&1 | sed 's/FAILED: .*Bad file descriptor.*/EBADF/')"
echo 1 >tracing_on
echo 0 >options/markers
expect_eq "markers=0" EINVAL "$(w trace_marker x)"
echo 1 >options/markers
expect_eq "no marker written" 3 "$(grep -c tracing_mark_write trace)"

# consumed by trace_pipe like any event; cleared by echo > trace
timeout 1 cat trace_pipe | grep -c tracing_mark_write >"$TOP/n.txt"
expect "pipe" "$TOP/n.txt" <<'EOF2'
3
EOF2
echo again >trace_marker
echo >trace
expect_eq "cleared" 0 "$(grep -vc '^#' trace)"
alive
finish
