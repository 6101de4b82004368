#!/bin/bash
# utrace start after utrace stop turns tracing on again, as trace-cmd's
# start does (issue 10 item 8): for one process (-P) and for all of them.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	check "$s start" "$UTRACE" start -P "$SERVER_PID" -p function -l handle_request
	check "$s stop" "$UTRACE" stop -P "$SERVER_PID"
	check "$s start -P again" "$UTRACE" start -P "$SERVER_PID" -p function -l handle_request
	expect_eq "$s tracing_on after start -P" 1 "$("$UTRACE" ps | awk 'NR > 1 {print $4}')"
	server_cmd "run 2"
	expect_eq "$s recorded after start -P" 2 "$(show_funcs | grep -c '^handle_request')"
	check "$s stop all" "$UTRACE" stop
	check "$s start all" "$UTRACE" start -p function -l parse_request
	expect_eq "$s tracing_on after start" 1 "$("$UTRACE" ps | awk 'NR > 1 {print $4}')"
	server_cmd "run 3"
	expect_eq "$s recorded after start" 3 "$(show_funcs | grep -c '^parse_request')"
	server_stop
}

for_styles one
finish
