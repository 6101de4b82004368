#!/bin/bash
# record -P of a server replacing its threads (issue 17): 4,400 short
# threads (more than the 4,096 slots) are recorded with every call; the
# recorder spools, takes an exited thread's last partial page so its slot
# is reused, and moves a retired thread's spool into one file.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

rm -rf run
server_start gcc-pfe
"$UTRACE" record -P "$SERVER_PID" -p function -l st_step -o p.dat >rec.out 2>rec.err &
rec=$!
for ((i = 0; i < 500; i++)); do
	"$UTRACE" ps | has ' function ' && break
	sleep 0.01
done
server_cmd "churn 1100 5"
expect_eq "churn" "churned 1540000" "$REPLY"
kill -INT $rec
wait $rec || fail "record -P status $?: $(cat rec.err)"
grep -E 'lost|not traced' rec.err && fail "record -P warned"
report p.dat | count_funcs >p.txt
expect "record -P: every call" p.txt <<'EOF'
st_step 22000
EOF
server_stop
no_crash rec.err p.dat.rerr
finish
