#!/bin/bash
# A full disk mid-run, with every CPU writing in place (a region per CPU in
# the output): record says so, the program runs on to its end (untraced from
# the error on), and what was written before is a whole trace.dat: the
# regions past the first CPU's chunks are given up first, then that CPU's
# newest chunks, until the tail fits.  A 3 MiB tmpfs (no COLLAPSE_RANGE
# there: the regions are copied down) holds a third of the trace.
. "$(dirname "$0")/../lib/common.sh"

[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
[ "$(nproc)" -ge 2 ] || skip "one CPU: one region"
P=$(prog threads "${STYLES%% *}")
mkdir small
mount -t tmpfs -o size=3m tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount small 2>/dev/null' EXIT

"$UTRACE" record -o small/t.dat -p function_graph -- "$P" 4 100000 pin >full.out 2>full.err
st=$?
expect_eq "record's status (the program's)" 0 "$st"
check "the program ran to its end" grep -q '^threads total' full.out
grep -q 'writing small/t.dat failed: No space left on device' full.err ||
	fail "record did not say so: $(cat full.err)"
no_crash full.err
report small/t.dat >r.out 2>r.err
st=$?
[ "$st" -le 1 ] || fail "report exited $st: $(cat r.err)"
n=$(grep -c 't_b();' r.out)
[ "$n" -gt 1000 ] || fail "report printed $n calls of t_b: $(head -3 r.err)"
[ "$(grep -c 't_b();' r.out)" -lt 800000 ] || fail "more calls than the disk could hold"
finish
