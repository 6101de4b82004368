#!/bin/bash
# show of a ring written at full speed (function_graph of a busy loop)
# prints its newest events, as the kernel's `trace` does, with the losses
# counted -- never a header alone, and it ends: it takes the ring once,
# newest pages first, while the writer laps it (and the newest again, a few
# times at most, when a copy kept little), instead of following the writer
# for as long as it writes.  During the run, three times, then
# after `stop`.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}
mkfifo bl.in
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog busyloop "$S")" <bl.in >bl.out 2>bl.err &
BL=$!
exec 7>bl.in
for ((i = 0; i < 500; i++)); do
	grep -q busy bl.out && break
	sleep 0.01
done
check "start" "$UTRACE" start -P $BL -p function_graph -l 'bl_*'
sleep 0.3 # the ring is full and lapped many times

# A 1408 KiB ring holds some 75,000 of these events at most (one ring's
# worth is all a show takes: ut_drain stops there).
look() {
	local what=$1 n
	timeout 30 "$UTRACE" show >"$what.txt" 2>"$what.err"
	expect_eq "$what: show ends" 0 $?
	n=$(grep -c 'bl_leaf();' "$what.txt")
	[ "$n" -ge 1000 ] || fail "$what: $n leaves printed (the header alone?)"
	[ "$(events <"$what.txt" | wc -l)" -le 100000 ] || fail "$what: more than the ring holds"
	grep -qE '^CPU:[0-9]+ \[LOST [0-9]+ EVENTS\]$' "$what.txt" || fail "$what: no loss line"
	grep -qE '^utrace: [0-9]+ events lost' "$what.err" || fail "$what: no loss warning"
	head -n 4 "$what.txt" >h.txt
	expect "$what: header" h.txt <<'EOF'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
EOF
}

for i in 1 2 3; do
	look "during$i"
done
check "stop" "$UTRACE" stop -P $BL
look after
exec 7>&-
wait $BL
grep -q '^done ' bl.out || fail "the program did not end well"
no_crash during1.err during2.err during3.err after.err
finish
