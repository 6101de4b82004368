#!/bin/bash
# record -P: record a running program until Ctrl-C, then put its
# configuration back (run by root, it drains at real-time priority); bad -P
# input.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1 rec i
	rm -rf run
	server_start "$s"
	"$UTRACE" record -P "$SERVER_PID" -p function -l 'parse_*' -o p.dat >rec.out 2>rec.err &
	rec=$!
	for ((i = 0; i < 500; i++)); do
		"$UTRACE" ps | has ' function ' && break
		sleep 0.01
	done
	server_cmd "run 1"
	# root may: the recorder drains at real-time priority (woken on time)
	if [ "$(id -u)" = 0 ]; then
		expect_eq "$s real-time recorder" FF "$(ps -o cls= -p "$rec" | tr -d ' ')"
	fi
	sleep 0.1
	kill -INT $rec
	wait $rec || fail "$s record -P status $?: $(cat rec.err)"
	report p.dat | funcs >p.txt
	expect "$s record -P" p.txt <<'EOF'
parse_request <-handle_request
parse_header <-parse_request
parse_header <-parse_request
parse_noise <-parse_request
EOF
	"$UTRACE" ps | awk 'NR > 1 {print $3}' >ps.txt
	expect "$s configuration put back" ps.txt <<'EOF'
nop
EOF
	server_stop
}

for_styles one

"$UTRACE" record -P 1 -- /bin/true 2>err.txt
expect_eq "record -P with a program" 2 $?
"$UTRACE" record -P abc 2>err.txt
expect_eq "record -P junk" 2 $?
"$UTRACE" record -P "$$" -o x.dat 2>err.txt
expect_eq "record -P untraced" 1 $?
grep -q "not running with libutrace" err.txt || fail "untraced: $(cat err.txt)"
finish
