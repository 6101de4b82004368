#!/bin/bash
# USDT probes recorded (issue 13): `utrace record -e provider:name` turns
# the probes' nops into traps, the runtime fetches each argument where the
# note says (registers of every width, constants, the stack, a static
# variable, an indexed load) and records one event per hit; `utrace
# report` prints them as the kernel prints events (name: arg1=.. arg2=..),
# and so does trace-cmd.  A probe's semaphore is raised while it is
# enabled, so the code its PROBE_ENABLED() guards runs then only.
. "$(dirname "$0")/../lib/common.sh"

# The values tests/progs/usdt.c passes in round i (0, 1): the same whatever
# the compiler made of them.  string's arg1 is a pointer: masked.
expected() {
	cat <<'EOF'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=0 arg2=0
usdt-<PID> [<CPU>] ..... <TS>: widths: arg1=-5 arg2=65535 arg3=1234605616436508552
usdt-<PID> [<CPU>] ..... <TS>: konst: arg1=42
usdt-<PID> [<CPU>] ..... <TS>: memory: arg1=0 arg2=7
usdt-<PID> [<CPU>] ..... <TS>: string: arg1=<PTR>
usdt-<PID> [<CPU>] ..... <TS>: noargs: 
usdt-<PID> [<CPU>] ..... <TS>: guarded: arg1=0 arg2=1
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=1 arg2=-1000
usdt-<PID> [<CPU>] ..... <TS>: widths: arg1=-6 arg2=65534 arg3=1234605616436508553
usdt-<PID> [<CPU>] ..... <TS>: konst: arg1=42
usdt-<PID> [<CPU>] ..... <TS>: memory: arg1=-1000 arg2=8
usdt-<PID> [<CPU>] ..... <TS>: string: arg1=<PTR>
usdt-<PID> [<CPU>] ..... <TS>: noargs: 
usdt-<PID> [<CPU>] ..... <TS>: guarded: arg1=1 arg2=2
EOF
}

one() {
	local s=$1 d=all.$1.dat
	record "$d" -e 'utest:*' -- "$(prog usdt "$s")" 2 || fail "$s: record exited $?: $(cat "$d.err")"
	[ -s "$d.err" ] && fail "$s: record printed on stderr: $(cat "$d.err")"
	# the semaphore was raised: the guarded code ran in both rounds
	expect "$s stdout" "$d.out" <<'EOF'
rounds 2 guarded 2 counter 9
EOF
	report "$d" >"$d.txt" || fail "$s: report exited $?: $(cat "$d.rerr")"
	grep -q '^# tracer: nop$' "$d.txt" || fail "$s: -e alone does not record with the nop tracer"
	events <"$d.txt" | mask | sed -E 's/string: arg1=[0-9]+$/string: arg1=<PTR>/' >"$d.ev"
	expected | expect "$s events" "$d.ev"
	# the pointer string passes is one of the program's words
	events <"$d.txt" | has -E 'string: arg1=[1-9][0-9]{5,}$' || fail "$s: string's pointer is not one"
	if command -v trace-cmd >/dev/null; then
		trace-cmd report "$d" 2>"$d.tcerr" | grep -E ': (pair|widths|memory|guarded):' |
			sed -E 's/^.*[0-9]+\.[0-9]+: ([a-z]+): +/\1: /' >"$d.tc"
		expect "$s trace-cmd report" "$d.tc" <<'EOF'
pair: arg1=0 arg2=0
widths: arg1=-5 arg2=65535 arg3=1234605616436508552
memory: arg1=0 arg2=7
guarded: arg1=0 arg2=1
pair: arg1=1 arg2=-1000
widths: arg1=-6 arg2=65534 arg3=1234605616436508553
memory: arg1=-1000 arg2=8
guarded: arg1=1 arg2=2
EOF
	fi
}
STYLES="gcc-pfe clang-pfe gcc-fentry" for_styles one

p=$(prog usdt gcc-pfe)

# Without -e the probes stay nops: no event, the semaphore stays down.
record none.dat -- "$p" 3 || fail "record without -e exited $?"
expect "no events: stdout" none.dat.out <<'EOF'
rounds 3 guarded 0 counter 10
EOF
report none.dat -p nop >none.txt 2>/dev/null
grep -q ': pair:' none.txt && fail "a probe recorded without -e"

# Selection: words add, !word removes, globs in either part; exact counts.
record sel.dat -e 'utest:*' -e '!utest:noargs' -e '!*:konst' -e '!w*' -- "$p" 5 ||
	fail "record with a selection exited $?: $(cat sel.dat.err)"
report sel.dat | events | sed -E 's/^.*: ([a-z]+): .*$/\1/' | sort | uniq -c |
	awk '{print $2, $1}' >sel.txt
expect "selected events, counted" sel.txt <<'EOF'
guarded 5
memory 5
pair 5
string 5
EOF
expect "selection: stdout" sel.dat.out <<'EOF'
rounds 5 guarded 5 counter 12
EOF

# Events with a tracer: inside a function graph, as the kernel shows them.
record graph.dat -p function_graph -e utest:pair -- "$p" 1 || fail "record -p function_graph -e exited $?"
report graph.dat | sed -E 's/^ *[0-9]+\)/ <CPU>)/; s/[0-9]+\.[0-9]+ us/<DUR> us/; s/[+!#*@$] <DUR>/  <DUR>/' |
	grep -E 'plain_probes|pair' >graph.txt
expect "an event in a graph" graph.txt <<'EOF'
 <CPU>)               |      plain_probes() {
 <CPU>)               |        /* pair: arg1=0 arg2=0 */
EOF

# A word naming no probe of the program or its libraries: nothing runs.
record bad.dat -e utest:nosuch -- "$p" >/dev/null 2>&1
rc=$?
expect_eq "unknown event: exit status" 2 "$rc"
expect "unknown event: message" bad.dat.err <<EOF
utrace: -e utest:nosuch: no USDT probe of $p or of its libraries is named so ('utrace list -e $p' lists them)
EOF
[ -s bad.dat.out ] && fail "the program ran despite an unknown event"
finish
