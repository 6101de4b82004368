#!/bin/bash
# show --pipe (trace_pipe): events as they come, consumed (a later show does
# not see them), no header; function_graph leaves across reads; with -P it
# ends when the process exits; run by root, its drainer thread is real-time.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1 rd
	rm -rf run
	server_start "$s"
	check "$s start" "$UTRACE" start -p function -l 'parse_*'
	"$UTRACE" show --pipe -P "$SERVER_PID" >pipe.txt 2>pipe.err &
	rd=$!
	server_cmd "run 1"
	sleep 0.2
	server_cmd "run 1"
	sleep 0.2
	# root may: the thread emptying the rings is real-time (woken on time)
	if [ "$(id -u)" = 0 ]; then
		expect_eq "$s real-time drainer" 1 "$(ps -L -o cls= -p "$rd" | grep -c FF)"
	fi
	expect_eq "$s consumed: show sees nothing" 0 "$("$UTRACE" show | funcs | wc -l)"
	check "$s graph" "$UTRACE" start -p function_graph -g handle_request
	server_cmd "run 1"
	server_stop
	wait $rd || fail "$s show --pipe status: $(cat pipe.err)"
	grep -c '^#' pipe.txt >hdr.txt
	expect "$s no header" hdr.txt <<'EOF'
0
EOF
	grep -v '|' pipe.txt | funcs >f.txt
	expect "$s function events" f.txt <<'EOF'
parse_request <-handle_request
parse_header <-parse_request
parse_header <-parse_request
parse_noise <-parse_request
parse_request <-handle_request
parse_header <-parse_request
parse_header <-parse_request
parse_noise <-parse_request
EOF
	grep '|' pipe.txt | sed -E 's/^ *[0-9]+\) [-+!#*@$ ] +[0-9.]+ us +\|/ <DUR> |/; s/^ *[0-9]+\)//' >g.txt
	expect "$s graph events" g.txt <<'EOF'
               |  handle_request() {
               |    parse_request() {
 <DUR> |      parse_header();
 <DUR> |      parse_header();
 <DUR> |      parse_noise();
 <DUR> |    }
 <DUR> |  }
EOF
}

for_styles one
finish
