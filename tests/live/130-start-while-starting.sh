#!/bin/bash
# A process that starts while a top-level change is being made gets it: it
# read the old template and could not be seen yet when `utrace start` (no
# -P) looked for processes, so it reads the template again once it can be.
# UTRACE_INIT_DELAY_UNPUBLISHED_MS holds it in that state.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1
	rm -rf run srv.in
	: >srv.out
	mkfifo srv.in
	UTRACE_INIT_DELAY_UNPUBLISHED_MS=1500 LD_PRELOAD=$UT_BUILD/libutrace.so \
		"$(prog server "$s")" <srv.in >srv.out 2>srv.err &
	SERVER_PID=$!
	exec 7>srv.in
	_srv_lines=0
	sleep 0.5 # it has read the template (nop) and is not visible yet
	"$UTRACE" ps | awk 'NR > 1' >ps.txt
	expect "$s not visible yet" ps.txt </dev/null
	check "$s start, top level" "$UTRACE" start -p function -l handle_request
	server_cmd ping >/dev/null
	server_cmd "run 2"
	show_funcs >f.txt
	expect "$s events" f.txt <<'EOT'
handle_request <-main
handle_request <-main
EOT
	server_stop
}

for_styles one
finish
