#!/bin/bash
# options/func_stack_trace (a <stack trace> event after each function
# event) and options/overwrite and sleep-time: options held by the
# processes' configuration, at the top level and per process (SPEC §8, §12).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo parse_noise >set_ftrace_filter
echo function >current_tracer
echo 1 >options/func_stack_trace
expect_eq "trace_options shows it" func_stack_trace "$(grep func_stack trace_options)"
expect_eq "process option" 1 "$(cat processes/$P/options/func_stack_trace)"
check "process config" grep -q '^func_stack_trace 1$' "$UTRACE_DIR"/*/config
run_req s1 1
mask <trace | events | sed -n '1,5p' >"$TOP/st.txt"
expect "stack trace" "$TOP/st.txt" <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: parse_noise <-parse_request
server-<PID> [<CPU>] ..... <TS>: <stack trace>
 => parse_noise
 => parse_request
 => handle_request
EOF2
check "stack reaches main" grep -qx ' => main' trace
echo nofunc_stack_trace >trace_options
echo >trace
run_req s1 1
expect_eq "off again" 0 "$(grep -c '<stack trace>' trace)"
expect_eq "one event" 1 "$(grep -c 'parse_noise <-parse_request' trace)"

# per process: only that process changes
echo 1 >processes/$P/options/func_stack_trace
expect_eq "top unchanged" 0 "$(cat options/func_stack_trace)"
run_req s1 1
expect_eq "process stack" 1 "$(grep -c '<stack trace>' processes/$P/trace)"
echo 0 >processes/$P/options/func_stack_trace

# overwrite and sleep-time go to the configuration too
echo 0 >options/overwrite
expect_eq "nooverwrite" nooverwrite "$(grep overwrite trace_options)"
check "process overwrite 0" grep -q '^overwrite 0$' "$UTRACE_DIR"/*/config
echo 1 >options/overwrite
echo 0 >processes/$P/options/sleep-time
expect_eq "sleep-time" 0 "$(cat processes/$P/options/sleep-time)"
expect_eq "top sleep-time" 1 "$(cat options/sleep-time)"

# output options are the mount's: they change how trace prints
echo 0 >options/context-info
mask <trace | sed -n '1,3p' >"$TOP/ci.txt"
expect "context-info=0" "$TOP/ci.txt" <<'EOF2'
# tracer: function
#
parse_noise <-parse_request
EOF2
expect_eq "context-info=0: no task column" 0 "$(grep -c 'server' trace)"
echo 1 >options/context-info
echo 1 >options/sym-offset
check "sym-offset" grep -qE 'parse_noise\+0x0/0x[0-9a-f]+ <-parse_request\+0x[0-9a-f]+/0x[0-9a-f]+' trace
echo 0 >options/sym-offset
alive
finish
