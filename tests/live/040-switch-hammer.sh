#!/bin/bash
# Tracer switches from the CLI (function, function_graph, nop, filters,
# stop) on a running process whose 4 threads hammer traced functions: the
# program's output is unchanged and it neither crashes nor hangs.  200 here
# (each is a utrace process, slow under ASan); tests/mount/160 does 1000.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

rm -rf run
server_start gcc-pfe
# the untraced answer
server_cmd "hammer 20000"
want=$REPLY
echo "hammer 3000000" >&7
tracers=(function function_graph nop)
for ((i = 0; i < 200; i++)); do
	case $((i % 4)) in
	0) "$UTRACE" start -P "$SERVER_PID" -p "${tracers[$((i % 3))]}" ;;
	1) "$UTRACE" start -P "$SERVER_PID" -p function -l st_leaf ;;
	2) "$UTRACE" stop -P "$SERVER_PID" ;;
	3) "$UTRACE" start -P "$SERVER_PID" -p function_graph -g st_step ;;
	esac || { fail "switch $i failed"; break; }
done
for ((i = 0; i < 3000; i++)); do
	[ "$(wc -l <srv.out)" -ge 3 ] && break
	sleep 0.01
done
_srv_lines=3
"$UTRACE" show >t.txt 2>t.err || fail "show after the switches: $(cat t.err)"
server_cmd "hammer 20000"
expect_eq "same result traced and switched" "$want" "$REPLY"
sed -n 3p srv.out | has '^hammered ' || fail "no answer from the hammering: $(cat srv.out)"
server_stop
[ -s srv.err ] && fail "program stderr: $(cat srv.err)"
finish
