#!/bin/bash
# The function tracer driven through the mount: set_ftrace_filter with '>'
# (replace), '>>' (append) and '!' (remove), set_ftrace_notrace, the trace
# file's content, and clearing with O_TRUNC (`echo > trace`) but not with a
# plain append (SPEC §6, §12).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
cd "$MNT" || exit 1

echo 'parse_*' >set_ftrace_filter
cat set_ftrace_filter >"$TOP/f1.txt"
expect "filter parse_*" "$TOP/f1.txt" <<'EOF2'
parse_header
parse_noise
parse_request
EOF2
echo '!parse_noise' >>set_ftrace_filter
echo handle_request >>set_ftrace_filter
cat set_ftrace_filter >"$TOP/f2.txt"
expect "filter after >> and !" "$TOP/f2.txt" <<'EOF2'
parse_header
parse_request
handle_request
EOF2
echo function >current_tracer
run_req s1 2
mask <trace >"$TOP/t1.txt"
expect "trace" "$TOP/t1.txt" <<'EOF2'
# tracer: function
#
# entries-in-buffer/entries-written: 8/8   #P:<N>
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
server-<PID> [<CPU>] ..... <TS>: handle_request <-main
server-<PID> [<CPU>] ..... <TS>: parse_request <-handle_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: handle_request <-main
server-<PID> [<CPU>] ..... <TS>: parse_request <-handle_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
EOF2
# the pid in the trace is the server's
check "trace pid" grep -q "server.gcc-pfe-$(pid_of s1) " trace
# the process's own directory shows the same
expect_eq "process filter" "$(cat set_ftrace_filter)" "$(cat processes/$(pid_of s1)/set_ftrace_filter)"

# `echo foo >> trace` clears nothing; `echo > trace` (O_TRUNC) clears
echo foo >>trace
expect_eq "append keeps the trace" 8 "$(grep -vc '^#' trace)"
echo >trace
expect_eq "O_TRUNC clears" 0 "$(grep -vc '^#' trace)"
check "cleared header" grep -q 'entries-in-buffer/entries-written: 0/0 ' trace

# notrace beats filter; options change the output (print-parent)
echo parse_header >set_ftrace_notrace
cat set_ftrace_notrace >"$TOP/n1.txt"
expect "notrace" "$TOP/n1.txt" <<'EOF2'
parse_header
EOF2
echo 0 >options/print-parent
run_req s1 1
funcs <trace >"$TOP/t2.txt"
expect "notrace applied, no parent" "$TOP/t2.txt" <<'EOF2'
handle_request
parse_request
EOF2
echo 1 >options/print-parent
check "print-parent back" grep -q 'parse_request <-handle_request' trace
echo noprint-parent >trace_options
expect_eq "trace_options write" 0 "$(cat options/print-parent)"
echo print-parent >trace_options

# '>' with whitespace only empties a list; `: >` (no write) too
echo >set_ftrace_notrace
expect_eq "notrace emptied" "#### no functions disabled ####" "$(cat set_ftrace_notrace)"
: >set_ftrace_filter
expect_eq "filter emptied" "#### all functions enabled ####" "$(cat set_ftrace_filter)"
check "config has no filter" sh -c "! grep -q '^filter' '$UTRACE_DIR/config'"

# available_filter_functions: the server's traceable functions
for f in handle_request parse_header parse_noise parse_request st_leaf st_step main; do
	grep -qx "$f" available_filter_functions || fail "available_filter_functions: no $f"
done
# a filter by index (the N-th line of available_filter_functions)
n=$(grep -nx parse_noise available_filter_functions | cut -d: -f1)
echo "$n" >set_ftrace_filter
expect_eq "filter by index" parse_noise "$(cat set_ftrace_filter)"

# tracing_on=0 stops recording, the trace stays
echo >trace
echo 'parse_noise' >set_ftrace_filter
run_req s1 1
echo 0 >tracing_on
run_req s1 3
expect_eq "tracing_on 0" "0 0" "$(cat tracing_on processes/*/tracing_on | tr '\n' ' ' | sed 's/ $//')"
expect_eq "events while off" 1 "$(grep -c parse_noise trace)"
echo 1 >tracing_on
run_req s1 1
expect_eq "events when on again" 2 "$(grep -c parse_noise trace)"
alive
finish
