#!/bin/bash
# hist keys on an address (issue 13, item 5): .sym and .sym-offset print
# the function an argument points to, as the kernel's sprint_symbol does
# ("[addr] name", "[addr] name+0xOFF/0xSIZE"), .hex prints hex; the probe
# ucalls:call of tests/progs/usdt_calls.c passes the function it calls
# (alpha once, beta twice a round) and the round.
. "$(dirname "$0")/mount.lib"

do_mount
mkfifo "$TOP/u.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog usdt_calls gcc-pfe)" <"$TOP/u.in" >"$TOP/u.out" 2>"$TOP/u.err" &
P=$!
_server_pids+=("$P")
exec {_fd_u}>"$TOP/u.in"
send u ping
wait_for u '^pong$'
cd "$MNT" || exit 1
T=events/ucalls/call/trigger
H=events/ucalls/call/hist

expect_eq ".sym" OK "$(a $T 'hist:keys=arg1.sym')"
expect_eq ".sym-offset" OK "$(a $T 'hist:keys=arg1.sym-offset:vals=arg2:sort=hitcount.descending')"
expect_eq ".hex" OK "$(a $T 'hist:keys=arg2.hex:sort=arg2')"
run_req u 11
sed -E -e 's/\[[0-9a-f]+\]/[ADDR]/' -e 's@/0x[0-9a-f]+ +\}@/0xSIZE }@' $H |
	grep -E '^(\{|# trigger)' >"$TOP/h.txt"
expect "the three hists" "$TOP/h.txt" <<'EOF2'
# trigger info: hist:keys=arg2.hex:vals=hitcount:sort=arg2.hex:size=2048 [active]
{ arg2: 0 } hitcount:          3
{ arg2: 1 } hitcount:          3
{ arg2: 2 } hitcount:          3
{ arg2: 3 } hitcount:          3
{ arg2: 4 } hitcount:          3
{ arg2: 5 } hitcount:          3
{ arg2: 6 } hitcount:          3
{ arg2: 7 } hitcount:          3
{ arg2: 8 } hitcount:          3
{ arg2: 9 } hitcount:          3
{ arg2: a } hitcount:          3
# trigger info: hist:keys=arg1.sym-offset:vals=hitcount,arg2:sort=hitcount.descending:size=2048 [active]
{ arg1: [ADDR] beta+0x0/0xSIZE } hitcount:         22  arg2:        110
{ arg1: [ADDR] alpha+0x0/0xSIZE } hitcount:         11  arg2:         55
# trigger info: hist:keys=arg1.sym:vals=hitcount:sort=hitcount:size=2048 [active]
{ arg1: [ADDR] alpha                                         } hitcount:         11
{ arg1: [ADDR] beta                                          } hitcount:         22
EOF2
# the address is the function's: its symbol's value in the file plus the load base
addr=$(sed -nE 's/^\{ arg1: \[([0-9a-f]+)\] alpha .*/\1/p' $H)
off=$(nm "$(prog usdt_calls gcc-pfe)" | sed -nE 's/^0*([0-9a-f]+) t alpha$/\1/p')
base=$(grep -m1 "usdt_calls.gcc-pfe" /proc/$P/maps | cut -d- -f1)
expect_eq "alpha's address" "$(printf '%x' $((0x$base + 0x$off)))" "$addr"
alive
finish
