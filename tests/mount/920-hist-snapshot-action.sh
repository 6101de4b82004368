#!/bin/bash
# hist's .snapshot() action (issue 13, items 5 and 9; histogram.rst):
# onchange($k).snapshot() on a USDT probe takes a snapshot of the trace
# when the tracked value changes (here once: utest:konst's arg1 is always
# 42), at the hit: the snapshot holds the events up to that hit, the live
# trace keeps the later ones, and the hist file shows the entry's
# "changed:" line and the kernel's "Snapshot taken" lines.  Writing the
# trigger allocates the snapshot; README lists snapshot(); onmatch() with
# .snapshot() is the kernel's "Handler doesn't support action".
. "$(dirname "$0")/mount.lib"

do_mount
start_server u "$(prog usdt gcc-pfe)" -i
U=$(pid_of u)
cd "$MNT" || exit 1

expect_eq "README lists snapshot()" 1 "$(grep -c 'snapshot()  *- snapshot the trace buffer' README)"
expect_eq "enable pair and konst" OK "$(w set_event 'utest:pair utest:konst')"
expect_eq "the trigger" OK "$(w events/utest/konst/trigger 'hist:keys=common_pid:k=arg1:onchange($k).snapshot()')"
expect_eq "listed as the kernel lists it" \
	'hist:keys=common_pid:vals=hitcount:k=arg1:sort=hitcount:size=2048:onchange($k).snapshot() [active]' \
	"$(cat events/utest/konst/trigger)"
expect_eq "writing it allocated the snapshot" "# * Snapshot is allocated *" "$(grep 'Snapshot is' snapshot)"
echo >trace
run_req u 1
run_req u 1
grep -v '^#' snapshot | sed -E 's/^.*: (pair|konst): /\1: /' >"$TOP/snap.txt"
expect "the snapshot: the trace at the first konst hit" "$TOP/snap.txt" <<'EOF2'
pair: arg1=0 arg2=0
konst: arg1=42
EOF2
grep -v '^#' trace | sed -E 's/^.*: (pair|konst): /\1: /' >"$TOP/trace.txt"
expect "the live trace: what came after" "$TOP/trace.txt" <<'EOF2'
pair: arg1=1 arg2=-1000
konst: arg1=42
EOF2
sed -E "s/ +$U }/ PID }/g" events/utest/konst/hist >"$TOP/hist.txt"
expect "hist: changed, and the snapshot's details" "$TOP/hist.txt" <<'EOF2'
# event histogram
#
# trigger info: hist:keys=common_pid:vals=hitcount:k=arg1:sort=hitcount:size=2048:onchange($k).snapshot() [active]
#

{ common_pid: PID } hitcount:          2
	changed:         42

Snapshot taken (see tracing/snapshot).  Details:
	triggering value { onchange($k) }:         42	triggered by event with key: { common_pid: PID }

Totals:
    Hits: 2
    Entries: 1
    Dropped: 0
EOF2
expect_eq "remove it" OK "$(a events/utest/konst/trigger '!hist:keys=common_pid:k=arg1:onchange($k).snapshot()')"

# onmax: a snapshot at each new maximum of pair's arg1 (2, then 3), each a swap
echo 0 >snapshot
expect_eq "onmax().snapshot()" OK "$(w events/utest/pair/trigger 'hist:keys=common_pid:v=arg1:onmax($v).snapshot()')"
echo >trace
run_req u 2
grep -v '^#' snapshot | sed -E 's/^.*: (pair|konst): /\1: /' >"$TOP/snap2.txt"
# swaps at arg1=2 (the snapshot: pair 2) and 3 (the snapshot: what came
# between, konst and pair 3; the live trace gets pair 2 back, as the
# kernel's swap puts the old snapshot into the live buffer)
expect "onmax: the snapshot swapped at the last maximum" "$TOP/snap2.txt" <<'EOF2'
konst: arg1=42
pair: arg1=3 arg2=-3000
EOF2
grep -v '^#' trace | sed -E 's/^.*: (pair|konst): /\1: /' >"$TOP/trace2.txt"
expect "onmax: the live trace" "$TOP/trace2.txt" <<'EOF2'
pair: arg1=2 arg2=-2000
konst: arg1=42
EOF2
grep -A1 '^Snapshot taken' events/utest/pair/hist | tail -n 1 | sed -E "s/ +$U }/ PID }/g" >"$TOP/detail.txt"
expect "onmax: its details" "$TOP/detail.txt" <<'EOF2'
	triggering value { onmax($v) }:          3	triggered by event with key: { common_pid: PID }
EOF2
expect_eq "remove" OK "$(a events/utest/pair/trigger '!hist:keys=common_pid:v=arg1:onmax($v).snapshot()')"

# onmatch() cannot snapshot: the kernel's message (trigger-action-hist-xfail)
echo >error_log
expect_eq "onmatch().snapshot() refused" EINVAL \
	"$(a events/utest/pair/trigger 'hist:keys=common_pid:onmatch(utest.konst).snapshot()')"
expect_eq "its error" "hist:utest:pair: error: Handler doesn't support action" \
	"$(sed -n 's/^\[[ 0-9.]*\] //p' error_log)"
alive
finish
