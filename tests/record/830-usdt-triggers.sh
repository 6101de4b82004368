#!/bin/bash
# Event triggers from the command line (issue 13, item 5): `utrace record
# --trigger 'PROVIDER:NAME TRIGGER'` gives the traced program the trigger
# the mount's events/PROVIDER/NAME/trigger takes: traceoff:1 stops the
# recording after the first pair (that event still recorded), stacktrace
# records the probe's callers (unwound through the trap), enable_event
# records a probe that is not enabled from the moment it fires.  Bad
# triggers, unknown events and fields exit 2 before the program runs.
. "$(dirname "$0")/../lib/common.sh"

P=$(prog usdt gcc-pfe)

record t1.dat -e 'utest:*' --trigger 'utest:pair traceoff:1' -- "$P" 3 || fail "record exited $?: $(cat t1.dat.err)"
report t1.dat | events | mask >t1.txt
expect "traceoff:1: only the event that fired it" t1.txt <<'EOF2'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=0 arg2=0
EOF2

record t2.dat -e utest:pair --trigger 'utest:pair stacktrace:1' -- "$P" 2 || fail "record exited $?: $(cat t2.dat.err)"
report t2.dat | events | mask | grep -v '=> \[\|__libc\|_start' >t2.txt
expect "stacktrace:1: the probe's callers, once" t2.txt <<'EOF2'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=0 arg2=0
usdt-<PID> [<CPU>] ..... <TS>: <stack trace>
 => plain_probes
 => run
 => main
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=1 arg2=-1000
EOF2

record t3.dat -e utest:pair --trigger 'utest:konst enable_event:utest:memory:1' -- "$P" 2 ||
	fail "record exited $?: $(cat t3.dat.err)"
report t3.dat | events | mask >t3.txt
expect "enable_event: memory recorded after konst fired" t3.txt <<'EOF2'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=0 arg2=0
usdt-<PID> [<CPU>] ..... <TS>: memory: arg1=0 arg2=7
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=1 arg2=-1000
usdt-<PID> [<CPU>] ..... <TS>: memory: arg1=-1000 arg2=8
EOF2

bad() { # LABEL MESSAGE TRIGGER
	record bad.dat -e utest:pair --trigger "$3" -- "$P" 1
	expect_eq "$1: exit status" 2 "$?"
	expect_eq "$1: message" "$2" "$(cat bad.dat.err)"
	[ -s bad.dat.out ] && fail "$1: the program ran"
}
bad "unknown trigger" "utrace: --trigger 'utest:pair bogus': Unknown trigger" 'utest:pair bogus'
bad "no event" "utrace: --trigger 'traceoff': 'PROVIDER:NAME TRIGGER' expected (e.g. 'utest:pair traceoff:1')" 'traceoff'
bad "unknown event" "utrace: --trigger: 'utest:nosuch' names no USDT probe of $P or of its libraries" 'utest:nosuch traceoff'
bad "unknown target" "utrace: --trigger: 'utest:nosuch' names no USDT probe of $P or of its libraries" 'utest:pair enable_event:utest:nosuch'
bad "field" "utrace: --trigger 'utest:pair hist:keys=arg3': Couldn't find field" 'utest:pair hist:keys=arg3'
bad "filter" "utrace: --trigger 'utest:pair traceoff if arg9 > 1': Field not found" 'utest:pair traceoff if arg9 > 1'
# if FILTER: the trigger acts on the hits the filter passes (the event
# firing it is recorded, then tracing stops)
record f.dat -e utest:pair --trigger 'utest:pair traceoff:1 if arg1 > 1' -- "$P" 5 ||
	fail "if FILTER: record exited $?: $(cat f.dat.err)"
report f.dat | events | sed -E 's/^.*: pair/pair/' >f.txt
expect "if FILTER" f.txt <<'EOF'
pair: arg1=0 arg2=0
pair: arg1=1 arg2=-1000
pair: arg1=2 arg2=-2000
EOF
finish
