#!/bin/bash
# Instances from the CLI (trace-cmd's -B): start -B makes one with its own
# function tracer, filter and buffers beside the top level; show/extract -B
# read it; stop/restart -B; function_graph is refused; reset -B removes it.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	check "$s top" "$UTRACE" start -p function -l handle_request
	check "$s instance" "$UTRACE" start -B foo -p function -l parse_header -l parse_noise
	server_cmd "run 1"
	show_funcs >top.txt
	expect "$s top level" top.txt <<'EOF'
handle_request <-main
EOF
	show_funcs -B foo >foo.txt
	expect "$s instance" foo.txt <<'EOF'
parse_header <-parse_request
parse_header <-parse_request
parse_noise <-parse_request
EOF
	check "$s stop -B" "$UTRACE" stop -B foo
	server_cmd "run 1"
	expect_eq "$s instance stopped" 3 "$(show_funcs -B foo | wc -l)"
	expect_eq "$s top still on" 2 "$(show_funcs | wc -l)"
	check "$s extract -B" "$UTRACE" extract -B foo -o foo.dat
	expect_eq "$s extracted" 3 "$(report foo.dat | funcs | wc -l)"
	"$UTRACE" start -B foo -p function_graph 2>err.txt
	expect_eq "$s function_graph refused" 2 $?
	check "$s reset -B" "$UTRACE" reset -B foo
	"$UTRACE" show -B foo >/dev/null 2>&1
	expect_eq "$s gone" 2 $?
	server_cmd "run 1"
	expect_eq "$s top unaffected" 3 "$(show_funcs | wc -l)"
	server_stop
	[ -s srv.err ] && fail "$s program stderr: $(cat srv.err)"
}

for_styles one
finish
