#!/bin/bash
# Instances from the CLI have what the mount's have: start -B takes function
# commands (a stacktrace fires into the instance's buffer, a traceoff stops
# the instance only), -C CLOCK (its own timestamps), --pid, --func-stack;
# show -B prints the instance's tracer in its header (nop after -p nop);
# function_graph and the graph settings are refused; a fork child keeps its
# parent's instance switch; a removed instance's events go with it.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

# the events of show -B foo, masked, stack traces down to main
inst_events() {
	"$UTRACE" show -B foo "$@" | events | mask |
		sed -E '/^ => /{/^ => (parse_header|parse_noise|parse_request|handle_request|main)$/!d}'
}

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	check "$s top" "$UTRACE" start -p function -l handle_request
	check "$s commands" "$UTRACE" start -B foo -p function -l parse_noise \
		-l 'parse_header:stacktrace:1'
	server_cmd "run 1"
	inst_events >st.txt
	expect "$s stacktrace in the instance" st.txt <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: <stack trace>
 => parse_header
 => parse_request
 => handle_request
 => main
server-<PID> [<CPU>] ..... <TS>: parse_noise <-parse_request
EOF2
	expect_eq "$s no stack at the top" 0 "$("$UTRACE" show | grep -c 'stack trace')"

	# traceoff in the instance: the instance stops, the top level goes on
	check "$s traceoff" "$UTRACE" start -B foo -p function -l parse_noise -l 'parse_request:traceoff'
	server_cmd "run 1"
	server_cmd "run 1"
	expect_eq "$s instance stopped" 0 "$(show_funcs -B foo | wc -l)"
	expect_eq "$s top on" 3 "$(show_funcs | wc -l)"

	# its own clock
	check "$s clock" "$UTRACE" start -B foo -p function -l parse_noise -C counter
	server_cmd "run 2"
	"$UTRACE" show -B foo | events | sed -E 's/^ *[^ ]+ +\[[0-9]+\] [^ ]+ +//; s/^[0-9]+: /<N>: /' >clk.txt
	expect "$s counter clock" clk.txt <<'EOF2'
<N>: parse_noise <-parse_request
<N>: parse_noise <-parse_request
EOF2
	expect_eq "$s top level: local clock" 5 "$("$UTRACE" show | events | grep -cE ' [0-9]+\.[0-9]{6}: ')"

	# --pid: not this process, then this one
	check "$s pid" "$UTRACE" start -B foo -p function -l parse_noise --pid 1
	server_cmd "run 1"
	expect_eq "$s other pid" 0 "$(show_funcs -B foo | wc -l)"
	check "$s pid" "$UTRACE" start -B foo -p function -l parse_noise --pid "$SERVER_PID"
	server_cmd "run 1"
	expect_eq "$s its pid" 1 "$(show_funcs -B foo | wc -l)"

	# --func-stack: a stack after each event
	check "$s func-stack" "$UTRACE" start -B foo -p function -l parse_noise --func-stack
	server_cmd "run 1"
	inst_events >fs.txt
	expect "$s func-stack in the instance" fs.txt <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: parse_noise <-parse_request
server-<PID> [<CPU>] ..... <TS>: <stack trace>
 => parse_noise
 => parse_request
 => handle_request
 => main
EOF2

	# the header names the instance's tracer
	expect_eq "$s header function" "# tracer: function" "$("$UTRACE" show -B foo | head -n 1)"
	check "$s nop" "$UTRACE" start -B foo -p nop
	expect_eq "$s header nop" "# tracer: nop" "$("$UTRACE" show -B foo | head -n 1)"

	"$UTRACE" start -B foo -p function_graph 2>err.txt
	expect_eq "$s function_graph refused" 2 $?
	"$UTRACE" start -B foo -p function --max-graph-depth 2 2>err.txt
	expect_eq "$s graph depth refused" 2 $?
	check "$s reset -B" "$UTRACE" reset -B foo
	server_stop
	[ -s srv.err ] && fail "$s program stderr: $(cat srv.err)"
}

# A fork child goes on with its parent's instance switch: off after a
# traceoff command fired in the parent, and off when started off.
forked() {
	local s=$1
	rm -rf run
	check "$s instance" "$UTRACE" start -B foo -p function -l 'f_*' -l 'f_parent_before:traceoff'
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog fork "$s")" >fork.out 2>&1
	expect_eq "$s traceoff in the parent stops the child" "" "$(show_funcs -B foo)"
	check "$s reset" "$UTRACE" reset -B foo
	check "$s instance" "$UTRACE" start -B foo -p function -l 'f_*'
	check "$s stop -B" "$UTRACE" stop -B foo
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog fork "$s")" >fork.out 2>&1
	expect_eq "$s started off, child off" "" "$(show_funcs -B foo)"
	check "$s restart -B" "$UTRACE" restart -B foo
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog fork "$s")" >fork.out 2>&1
	expect_eq "$s on" "f_child f_child f_child f_parent_after f_parent_before" \
		"$(show_funcs -B foo | awk '{print $1}' | sort | xargs)"
	# removed, its events go too: a new instance of that name starts empty
	check "$s reset" "$UTRACE" reset -B foo
	check "$s again" "$UTRACE" start -B foo -p function -l 'f_*'
	expect_eq "$s new instance empty" "" "$(show_funcs -B foo)"
	"$UTRACE" reset -B foo
}

for_styles one
for_styles forked
finish
