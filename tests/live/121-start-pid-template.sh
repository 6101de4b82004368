#!/bin/bash
# set_ftrace_pid in the template (start --pid, no -P): a process started
# afterwards records only the threads the list names, from its very first
# call, under the function tracer and function_graph alike (a new thread is
# checked at its first event; it used to pass as wanted, unchecked, until
# the list changed again).  Naming the process's own pid then traces it.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1 tracer
	for tracer in function function_graph; do
		rm -rf run
		check "$s $tracer start --pid 1" "$UTRACE" start -p "$tracer" -l handle_request --pid 1
		server_start "$s"
		server_cmd "run 2"
		"$UTRACE" show | events >e1.txt
		expect "$s $tracer another pid: nothing" e1.txt </dev/null
		check "$s $tracer --pid self" "$UTRACE" start -P "$SERVER_PID" -p "$tracer" \
			-l handle_request --pid "$SERVER_PID"
		server_cmd "run 1"
		"$UTRACE" show | events | grep -c handle_request >n.txt
		expect "$s $tracer its own pid" n.txt <<'EOF2'
1
EOF2
		server_stop
		"$UTRACE" reset >/dev/null 2>&1
	done
}

for_styles one
finish
