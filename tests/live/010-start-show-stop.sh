#!/bin/bash
# trace-cmd-style live control of a running program: start (with filters,
# >> style lists and ! removal), show, stop/restart, function_graph with
# set_graph_function and max_graph_depth, bad input keeping the previous
# configuration, reset; the program's own output is the same as untraced.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	"$UTRACE" ps | awk 'NR > 1 {print $3, $4, $7}' >ps.txt
	expect "$s ps" ps.txt <<'EOF'
nop 1 running
EOF
	check "$s start" "$UTRACE" start -p function -l 'parse_*' -l '!parse_noise'
	server_cmd "run 2"
	show_funcs >f1.txt
	expect "$s function, filter" f1.txt <<'EOF'
parse_request <-handle_request
parse_header <-parse_request
parse_header <-parse_request
parse_request <-handle_request
parse_header <-parse_request
parse_header <-parse_request
EOF
	# a pattern matching nothing: EINVAL (exit 2), the old configuration stays
	"$UTRACE" start -p function -l 'nosuch_*' 2>err.txt
	expect_eq "$s bad filter status" 2 $?
	grep -q "nosuch\|match" err.txt || fail "$s bad filter: no message: $(cat err.txt)"
	server_cmd "run 1"
	show_funcs | tail -n 3 >f2.txt
	expect "$s config kept" f2.txt <<'EOF'
parse_request <-handle_request
parse_header <-parse_request
parse_header <-parse_request
EOF
	check "$s stop" "$UTRACE" stop
	server_cmd "run 1"
	expect_eq "$s stopped: no new events" 9 "$(show_funcs | wc -l)"
	check "$s restart" "$UTRACE" restart
	server_cmd "run 1"
	expect_eq "$s restarted" 12 "$(show_funcs | wc -l)"
	check "$s graph" "$UTRACE" start -P "$SERVER_PID" -p function_graph -g handle_request \
		--max-graph-depth 2
	server_cmd "run 1"
	"$UTRACE" show | sed -E 's/^ *[0-9]+\) [-+!#*@$ ] +[0-9.]+ us +\|/ <DUR> |/; s/^ *[0-9]+\)//' \
		| grep -v '^#' >g.txt
	expect "$s function_graph" g.txt <<'EOF'
               |  handle_request() {
 <DUR> |    parse_request();
 <DUR> |  }
EOF
	check "$s reset" "$UTRACE" reset
	"$UTRACE" ps | awk 'NR > 1 {print $3}' >ps2.txt
	expect "$s reset: nop" ps2.txt <<'EOF'
nop
EOF
	expect_eq "$s reset: empty" 0 "$(show_funcs | wc -l)"
	server_stop
	expect "$s program output" srv.out <<'EOF'
pong
ran 2 17
ran 1 5
ran 1 5
ran 1 5
ran 1 5
EOF
	[ -s srv.err ] && fail "$s program stderr: $(cat srv.err)"
}

for_styles one
finish
