#!/bin/bash
# Two writers at once on one process (and on the top level): every change
# is applied whole, one after the other (the config file's lock), none hangs
# or fails, and the process ends with one of the two configurations.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

rm -rf run
server_start gcc-pfe
writer() { # FILTER N
	local i
	for ((i = 0; i < $2; i++)); do
		"$UTRACE" start -P "$SERVER_PID" -p function -l "$1" || { echo "writer $1: failed"; return 1; }
		"$UTRACE" start -p function -l "$1" || { echo "writer $1 top: failed"; return 1; }
	done
}
writer parse_header 100 >w1.txt 2>&1 &
w1=$!
writer parse_noise 100 >w2.txt 2>&1 &
w2=$!
wait $w1 || fail "writer 1: $(cat w1.txt)"
wait $w2 || fail "writer 2: $(cat w2.txt)"
server_cmd "run 1"
show_funcs | awk '{print $1}' | sort -u >f.txt
case $(cat f.txt) in
parse_header | parse_noise) ;;
*) fail "the final configuration is neither writer's: $(cat f.txt)" ;;
esac
grep -E '^filter (parse_header|parse_noise)$' run/[0-9]*/config >/dev/null ||
	fail "session config: $(cat run/[0-9]*/config)"
grep -E '^filter (parse_header|parse_noise)$' run/config >/dev/null ||
	fail "template: $(cat run/config)"
server_stop
[ -s srv.err ] && fail "program stderr: $(cat srv.err)"
finish
