#!/bin/bash
# trace_marker from outside the process (utrace marker): into one process's
# trace with -P, or into the user's (top level), merged in time order with
# the process's events; the writing task names the marker's line.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	check "$s start" "$UTRACE" start -p function -l handle_request
	server_cmd "run 1"
	check "$s marker -P" "$UTRACE" marker -P "$SERVER_PID" between the calls
	server_cmd "run 1"
	check "$s marker" "$UTRACE" marker top level
	"$UTRACE" show | events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //' >m.txt
	expect "$s markers in order" m.txt <<'EOF'
handle_request <-main
tracing_mark_write: between the calls
handle_request <-main
tracing_mark_write: top level
EOF
	"$UTRACE" show | grep tracing_mark_write | sed -E 's/^ *([^ ]+)-[0-9]+ .*/\1/' | sort -u >who.txt
	expect "$s the writing task" who.txt <<'EOF'
utrace
EOF
	"$UTRACE" ps | awk 'NR > 1' | wc -l >n.txt
	expect "$s ps hides the markers session" n.txt <<'EOF'
1
EOF
	server_stop
}

for_styles one
"$UTRACE" marker 2>/dev/null
expect_eq "marker without text" 2 $?
finish
