#!/bin/bash
# Event triggers set live (issue 13, item 5): `utrace start --trigger`
# gives a running process the trigger (traceoff:1 on pair: recording stops
# after the next pair, which is still recorded); `utrace start` without it
# removes it; a trigger naming no probe of the running processes, or a
# field its event lacks, is refused (exit 2) and changes nothing.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/usdt-live.sh"
export UTRACE_DIR=$PWD/run

P=$(prog usdt gcc-pfe)
usdt_live_start "$P"

"$UTRACE" start -P "$pid" -e 'utest:pair utest:konst' --trigger 'utest:pair traceoff:1' 2>start.err ||
	fail "start --trigger exited $?: $(cat start.err)"
cmd "run 2"
"$UTRACE" show -P "$pid" 2>show.err | events | mask >show.txt
expect "the pair that fired traceoff, nothing after" show.txt <<'EOF'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=0 arg2=0
EOF

"$UTRACE" start -P "$pid" --trigger 'utest:pair hist:keys=nosuch' 2>bad.err
expect_eq "a field the event lacks: exit status" 2 "$?"
expect "its message" bad.err <<'EOF'
utrace: --trigger 'utest:pair hist:keys=nosuch': Couldn't find field
EOF
"$UTRACE" start -P "$pid" --trigger 'utest:nosuch traceoff' 2>bad2.err
expect_eq "no such event: exit status" 2 "$?"
expect "its message" bad2.err <<'EOF'
utrace: --trigger: 'utest:nosuch' names no USDT probe of the traced processes
EOF

# without --trigger (start turns tracing back on): recorded again
"$UTRACE" start -P "$pid" -e 'utest:pair' 2>start2.err || fail "start exited $?: $(cat start2.err)"
cmd "run 1"
"$UTRACE" show -P "$pid" 2>/dev/null | events | mask | tail -n 1 >after.txt
expect "no trigger left: round 2 recorded" after.txt <<'EOF'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=2 arg2=-2000
EOF
echo quit >&7
wait "$pid"
expect_eq "the program exits cleanly" 0 "$?"
finish
