#!/bin/bash
# Each event prints with the format it was written with, whatever the
# tracer is now: a dead process's function_graph buffers next to a running
# process switched to function (they printed as "Unknown type 11"), and
# the other way round.  The header is the running process's tracer's, as
# current_tracer names the kernel's; extract + report print the same.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}

graph_mask() {
	mask | sed -E 's/^ *[0-9]+\) +[-+!#*@$]? *[0-9.]+ us +\|/ <CPU>) <DUR> |/;
		s/^ *[0-9]+\) +\|/ <CPU>)       |/'
}

# one OLD NEW: a process traced with OLD ran and exited; another runs,
# switched from OLD to NEW; both ran "run 1".
one() {
	local old=$1 new=$2
	"$UTRACE" reset >/dev/null 2>&1
	check "$old: template" "$UTRACE" start -p "$old" -l 'parse_*'
	server_start "$S"
	server_cmd "run 1"
	server_stop # gone: its buffers stay
	server_start "$S"
	check "$new: start -P" "$UTRACE" start -P "$SERVER_PID" -p "$new" -l 'parse_*'
	server_cmd "run 1"
	"$UTRACE" show >"$new.txt" 2>"$new.err"
	expect_eq "$new: show status" 0 $?
	check "$new: extract" "$UTRACE" extract -o "$new.dat"
	report "$new.dat" >"$new.r.txt"
	check "$new: show = extract + report" cmp "$new.txt" "$new.r.txt"
	grep -v '^#' "$new.txt" | graph_mask >"$new.m.txt"
	grep '^# tracer:' "$new.txt" >>"$new.m.txt"
	server_stop
}

one function_graph function
expect "graph then function" function.m.txt <<'EOF'
 <CPU>)       |  parse_request() {
 <CPU>) <DUR> |    parse_header();
 <CPU>) <DUR> |    parse_header();
 <CPU>) <DUR> |    parse_noise();
 <CPU>) <DUR> |  }
server-<PID> [<CPU>] ..... <TS>: parse_request <-handle_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_noise <-parse_request
# tracer: function
EOF

one function function_graph
expect "function then graph" function_graph.m.txt <<'EOF'
server-<PID> [<CPU>] ..... <TS>: parse_request <-handle_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_noise <-parse_request
 <CPU>)       |  parse_request() {
 <CPU>) <DUR> |    parse_header();
 <CPU>) <DUR> |    parse_header();
 <CPU>) <DUR> |    parse_noise();
 <CPU>) <DUR> |  }
# tracer: function_graph
EOF
no_crash function.err function_graph.err function.dat.rerr function_graph.dat.rerr
finish
