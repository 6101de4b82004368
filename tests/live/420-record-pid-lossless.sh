#!/bin/bash
# record -P is lossless too: a running program with a tiny buffer, recorded
# by a recorder slowed on purpose (UTRACE_TEST_DRAIN_DELAY_US), keeps every
# call; its configuration is put back afterwards, and then, under `utrace
# start` with nobody draining, a full buffer drops and counts as the
# kernel's does (the program never waits for a reader that is not there).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1 rec i
	rm -rf run
	server_start "$s"
	UTRACE_TEST_DRAIN_DELAY_US=2000 "$UTRACE" record -P "$SERVER_PID" -p function -b 4 \
		-l 'parse_*' -l 'handle_*' -o p.dat >rec.out 2>rec.err &
	rec=$!
	for ((i = 0; i < 500; i++)); do
		"$UTRACE" ps | has ' function ' && break
		sleep 0.01
	done
	server_cmd "run 2000"
	kill -INT $rec
	wait $rec || fail "$s record -P status $?: $(cat rec.err)"
	grep lost rec.err && fail "$s record -P: losses said"
	report p.dat | funcs | awk '{print $1}' | sort | uniq -c | awk '{print $2, $1}' >p.txt
	expect "$s record -P: every call" p.txt <<'EOF'
handle_request 2000
parse_header 4000
parse_noise 2000
parse_request 2000
EOF
	"$UTRACE" ps | awk 'NR > 1 {print $3}' >ps.txt
	expect "$s configuration put back" ps.txt <<'EOF'
nop
EOF
	# no reader: drop and count (the reply comes: the program did not wait)
	check "$s start" "$UTRACE" start -p function -b 4 -l 'parse_*' -l 'handle_*'
	server_cmd "run 2000"
	expect_eq "$s start: the program ran" "ran 2000" "${REPLY% *}"
	"$UTRACE" show >show.txt 2>show.err
	grep -q 'LOST' show.txt || fail "$s start: no loss shown"
	check "$s stop" "$UTRACE" stop
	server_stop
}

for_styles one
finish
