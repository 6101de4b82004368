#!/bin/bash
# USDT probes enabled with a jump (issue 13 items 2 and 8): an enabled
# probe's nop and the instructions around it move to a slot that records
# the probe without a signal.  tests/progs/usdt_jump.c's probes are
# written in assembly around known code: every argument location form in
# a leaf that keeps values in its red zone and flags live across the
# probe (jump:forms), a branch landing right after the nop, so the jump
# starts before it (jump:back), a return right after the nop, so nothing
# can move and the probe stays an int3 (jump:ret), a vector register live
# across a probe whose hit needs the C library (jump:xmm with a trigger:
# the vector registers are saved) or a filter (judged without them).  The program checks what each function
# returns; the events carry the arguments exactly, the same as through the
# int3 (UTRACE_USDT_INT3=1).  UTRACE_TEST_USDT=PATH makes the runtime say
# how each probe is enabled, and `utrace list -e --jumps` says the same
# from the file.
. "$(dirname "$0")/../lib/common.sh"

expected_events() {
	cat <<'EOF'
forms: arg1=4660 arg2=-5 arg3=4660 arg4=-5 arg5=-7 arg6=-3 arg7=31 arg8=-5 arg9=18 arg10=300
ret: arg1=0
xmm: arg1=0 arg2=0
forms: arg1=4661 arg2=5 arg3=4661 arg4=5 arg5=-7 arg6=-3 arg7=31 arg8=5 arg9=18 arg10=300
back: arg1=1 arg2=1
ret: arg1=1
xmm: arg1=1 arg2=1
forms: arg1=4662 arg2=15 arg3=4662 arg4=15 arg5=-7 arg6=-3 arg7=31 arg8=15 arg9=18 arg10=300
ret: arg1=2
xmm: arg1=2 arg2=2
EOF
}

stdout3() {
	cat <<'EOF'
forms 4648 back 1 ret 0 xmm 6.0
forms 4659 back 2 ret 1 xmm 10.0
forms 4670 back 3 ret 2 xmm 14.0
wrong 0
EOF
}

# same_as_list LABEL PROGRAM MODES: `list -e --jumps` says what the runtime did (its own probes).
same_as_list() {
	"$UTRACE" list -e "$2" --jumps >"$3.list" 2>"$3.lerr" || fail "$1: list -e --jumps exited $?"
	grep -E '^(jump|utest):' "$3.list" |
		sed -E 's/^([^ ]+) .*\[jump\]$/\1 jump/; s/^([^ ]+) .*\[int3: (.*)\]$/\1 int3: \2/' |
		sort >"$3.l"
	sort "$3" | expect "$1: list -e --jumps" "$3.l"
}

one() {
	local s=$1 p d=j.$1.dat
	p=$(prog usdt_jump "$s")
	rm -f "modes.$s"
	UTRACE_TEST_USDT=$PWD/modes.$s record "$d" -e 'jump:*' -- "$p" 3 ||
		fail "$s: record exited $?: $(cat "$d.err")"
	[ -s "$d.err" ] && fail "$s: record printed on stderr: $(cat "$d.err")"
	stdout3 | expect "$s: the program's results, probes enabled" "$d.out"
	expect "$s: how each probe is enabled" "modes.$s" <<'EOF'
jump:forms jump
jump:back jump
jump:ret int3: a return or jump away among the instructions a jump would cover
jump:xmm jump
EOF
	same_as_list "$s" "$p" "modes.$s"
	report "$d" | events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //' >"$d.ev"
	expected_events | expect "$s: events through the jumps" "$d.ev"

	# the same through the int3 everywhere
	UTRACE_USDT_INT3=1 UTRACE_TEST_USDT=$PWD/modes3.$s record "$d.3" -e 'jump:*' -- "$p" 3 ||
		fail "$s: record (int3) exited $?: $(cat "$d.3.err")"
	grep -vc 'int3: UTRACE_USDT_INT3 asks for it$' "modes3.$s" >"$d.3.n"
	expect "$s: UTRACE_USDT_INT3: every probe an int3" "$d.3.n" <<'EOF'
0
EOF
	report "$d.3" | events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //' >"$d.3.ev"
	expected_events | expect "$s: events through the int3s" "$d.3.ev"

	# a trigger needs the C library: the hit saves the vector registers
	# first (the memcpy of the record's two arguments uses %xmm0)
	record "$d.t" -e jump:xmm --trigger 'jump:xmm hist:keys=arg1' -- "$p" 3 ||
		fail "$s: record --trigger exited $?: $(cat "$d.t.err")"
	stdout3 | expect "$s: the program's results, a probe with a trigger" "$d.t.out"
	report "$d.t" | events | grep -c ': xmm: ' >"$d.t.n"
	expect "$s: events of the probe with a trigger" "$d.t.n" <<'EOF'
3
EOF

	# a filter is judged on the fast path, before anything is written
	record "$d.f" -e jump:xmm -f 'arg1 != 1' -- "$p" 3 ||
		fail "$s: record -f exited $?: $(cat "$d.f.err")"
	stdout3 | expect "$s: the program's results, a filtered probe" "$d.f.out"
	report "$d.f" | events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //' >"$d.f.ev"
	expect "$s: filtered events" "$d.f.ev" <<'EOF'
xmm: arg1=0 arg2=0
xmm: arg1=2 arg2=2
EOF
}
STYLES="gcc-pfe clang-pfe gcc-fentry" for_styles one

p=$(prog usdt_jump gcc-pfe)
# Untraced, and traced with the probes left alone: the same results.
"$p" 3 >plain.out || fail "the program alone exited $?"
stdout3 | expect "the program alone" plain.out

# Exact counts over many hits, several probes in one function's neighbourhood.
record many.dat -e 'jump:forms' -e 'jump:back' -- "$p" 1000 || fail "record 1000 exited $?"
tail -1 many.dat.out >many.last
expect "1000 rounds: every result right" many.last <<'EOF'
wrong 0
EOF
report many.dat | events | sed -E 's/^.*: ([a-z]+): .*$/\1/' | sort | uniq -c | awk '{print $2, $1}' >many.txt
expect "1000 rounds: events counted" many.txt <<'EOF'
back 500
forms 1000
EOF

# tests/progs/usdt.c (compiled C): its probes' modes, whatever they are,
# are one line each, and its events are those of record/801.
rm -f modes.c
UTRACE_TEST_USDT=$PWD/modes.c record c.dat -e 'utest:*' -- "$(prog usdt clang-pfe)" 2 ||
	fail "record usdt exited $?"
cut -d' ' -f1 modes.c | sort >modes.c.names
expect "usdt.c: one line per probe" modes.c.names <<'EOF'
utest:guarded
utest:konst
utest:memory
utest:noargs
utest:pair
utest:string
utest:widths
EOF
same_as_list "usdt.c (clang)" "$(prog usdt clang-pfe)" modes.c
rm -f modes.g
UTRACE_TEST_USDT=$PWD/modes.g record g.dat -e 'utest:*' -- "$(prog usdt gcc-pfe)" 2 ||
	fail "record usdt (gcc) exited $?"
same_as_list "usdt.c (gcc)" "$(prog usdt gcc-pfe)" modes.g
# Stripped (no .symtab): the probes' functions are known from their FDEs,
# as in Debian's binaries; the same modes and events.
strip -o usdt.stripped "$(prog usdt clang-pfe)" || fail "strip failed"
rm -f modes.s
LD_LIBRARY_PATH=$UT_PROGS UTRACE_TEST_USDT=$PWD/modes.s record s.dat -e 'utest:*' -- ./usdt.stripped 2 ||
	fail "record of the stripped program exited $?: $(cat s.dat.err)"
sort modes.c | expect "stripped: the same modes" <(sort modes.s)
same_as_list "stripped" ./usdt.stripped modes.s
report s.dat | events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //' >s.ev
report c.dat | events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //' | expect "stripped: the same events" s.ev
grep -c ' jump$' modes.c >modes.c.jumps
expect "usdt.c (clang): every probe a jump" modes.c.jumps <<'EOF'
7
EOF
report c.dat | events | grep -c ': [a-z]*: ' >c.n
expect "usdt.c: 14 events" c.n <<'EOF'
14
EOF
finish
