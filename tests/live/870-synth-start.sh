#!/bin/bash
# Synthetic events set live (issue 13, item 5): `utrace start --synth`
# defines one in a running process, `--trigger` sets the hist variable on
# utest:pair and the onmatch() on utest:guarded that generates it (the
# same thread's pair to guarded latency with the round); `show` prints the
# synthetic events the process wrote; onmax($r).trace() generates one at
# each new maximum.  A bad definition exits 2 and changes nothing.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/usdt-live.sh"
export UTRACE_DIR=$PWD/run

P=$(prog usdt gcc-pfe)
usdt_live_start "$P"

"$UTRACE" start -P "$pid" --synth 'lat u64 us; s64 round' -e synthetic:lat \
	--trigger 'utest:pair hist:keys=common_pid:ts0=common_timestamp.usecs' \
	--trigger 'utest:guarded hist:keys=common_pid:d=common_timestamp.usecs-$ts0:onmatch(utest.pair).lat($d,arg1)' \
	2>start.err || fail "start --synth exited $?: $(cat start.err)"
cmd "run 3"
"$UTRACE" show -P "$pid" 2>show.err | events | mask | sed -E 's/us=[0-9]+/us=N/' >show.txt
expect "one lat per round (the older .lat() spelling)" show.txt <<'EOF'
usdt-<PID> [<CPU>] ..... <TS>: lat: us=N round=0
usdt-<PID> [<CPU>] ..... <TS>: lat: us=N round=1
usdt-<PID> [<CPU>] ..... <TS>: lat: us=N round=2
EOF

# onmax().trace(): a synthetic event at each new maximum of the round
"$UTRACE" start -P "$pid" --synth 'mx s64 round' -e synthetic:mx \
	--trigger 'utest:pair hist:keys=common_pid:r=arg1:onmax($r).trace(mx,$r)' \
	2>start2.err || fail "start onmax exited $?: $(cat start2.err)"
cmd "run 2"
"$UTRACE" show -P "$pid" 2>/dev/null | grep -o 'mx: .*' >mx.txt
expect "rounds 3 and 4, each a new maximum" mx.txt <<'EOF'
mx: round=3
mx: round=4
EOF

"$UTRACE" start -P "$pid" --synth 'lat u64 us; s64' 2>bad.err
expect_eq "a bad definition: exit status" 2 "$?"
expect "its message" bad.err <<'EOF'
utrace: --synth 'lat u64 us; s64': Invalid field
EOF
echo quit >&7
wait "$pid"
expect_eq "the program exits cleanly" 0 "$?"
finish
