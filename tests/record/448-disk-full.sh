#!/bin/bash
# A full disk mid-run, with both CPUs writing (threads pinned): record says
# so, the program runs on to its end (untraced from the error on), and what
# was written before is a whole trace.dat: every CPU gives up the same share
# of its newest chunks until the tail fits (the temp file's too).  A 3 MiB tmpfs holds a third of
# the trace (tmpfs cannot collapse holes: the second CPU writes to a temp
# file there, as on any file system without COLLAPSE_RANGE).
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
# every CPU gives up the same share of its newest data: both are still there
if command -v trace-cmd >/dev/null; then
	trace-cmd report small/t.dat >tc.out 2>tc.err || fail "trace-cmd report failed: $(tail -2 tc.err)"
	for c in 000 001; do
		grep -q "\[$c\].*funcgraph_entry" tc.out || fail "trace-cmd shows no event of CPU $c"
	done
fi
finish
