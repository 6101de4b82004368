#!/bin/bash
# Function commands on a running process: FUNC:traceoff[:N], traceon,
# stacktrace; tracing_on written directly, so a later filter change does not
# undo a traceoff; start --pid (set_ftrace_pid) narrowing to other threads.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	check "$s traceoff" "$UTRACE" start -P "$SERVER_PID" -p function -l 'parse_*' \
		-l 'parse_noise:traceoff:1'
	server_cmd "run 2"
	show_funcs >f.txt
	expect "$s traceoff at parse_noise" f.txt <<'EOF'
parse_request <-handle_request
parse_header <-parse_request
parse_header <-parse_request
EOF
	"$UTRACE" ps | awk 'NR > 1 {print $4}' >on.txt
	expect "$s tracing_on after traceoff" on.txt <<'EOF'
0
EOF
	check "$s restart" "$UTRACE" restart -P "$SERVER_PID"
	server_cmd "run 1"
	# the count is used up: parse_noise is recorded now
	expect_eq "$s count used up" 7 "$(show_funcs | wc -l)"
	# a command-only function (tracer nop): its site is on for the command
	check "$s stacktrace, nop" "$UTRACE" start -P "$SERVER_PID" -p nop -l 'parse_header:stacktrace:1'
	server_cmd "run 1"
	"$UTRACE" show | events | sed -E 's/^.*: //; s/^ *//' | sed '/=> main/q' >st.txt
	expect "$s stacktrace" st.txt <<'EOF'
<stack trace>
=> parse_header
=> parse_request
=> handle_request
=> main
EOF
	# set_ftrace_pid: a thread id that is not the main thread's
	check "$s pid filter" "$UTRACE" start -P "$SERVER_PID" -p function -l handle_request --pid 1
	server_cmd "run 2"
	expect_eq "$s other pid: nothing" 0 "$(show_funcs | wc -l)"
	check "$s pid filter, own pid" "$UTRACE" start -P "$SERVER_PID" -p function -l handle_request \
		--pid "$SERVER_PID"
	server_cmd "run 2"
	expect_eq "$s own pid" 2 "$(show_funcs | wc -l)"
	server_stop
}

for_styles one
finish
