#!/bin/bash
# A writer that finds a process while it is still starting (its sites being
# scanned, its agent not yet running) has its configuration applied, not
# overwritten by the process's own start-up, and start -P returns once it
# is.  UTRACE_INIT_DELAY_MS stretches the start-up as a big program does.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1 i
	rm -rf run srv.in
	: >srv.out
	mkfifo srv.in
	UTRACE_INIT_DELAY_MS=1500 LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog server "$s")" \
		<srv.in >srv.out 2>srv.err &
	SERVER_PID=$!
	exec 7>srv.in
	_srv_lines=0
	for ((i = 0; i < 500; i++)); do
		"$UTRACE" ps | has " $SERVER_PID " && break
		sleep 0.01
	done
	check "$s start -P while starting" "$UTRACE" start -P "$SERVER_PID" -p function -l handle_request
	"$UTRACE" ps | awk -v p="$SERVER_PID" '$1 == p {print $3}' >tr.txt
	expect "$s tracer at once" tr.txt <<'EOF'
function
EOF
	server_cmd "run 2"
	show_funcs >f.txt
	expect "$s events" f.txt <<'EOF'
handle_request <-main
handle_request <-main
EOF
	server_stop
}

for_styles one
finish
