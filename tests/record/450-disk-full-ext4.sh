#!/bin/bash
# A full ext4 disk mid-run, both CPUs writing (threads pinned): on ext4 the
# second CPU writes its chunks into a region of the output file itself (no
# temp file; the holes are collapsed at the end), so the cut when the disk
# fills happens inside the file.  record says so, the program runs on to its
# end, and what was written is a whole trace.dat that report and trace-cmd
# read, with both CPUs' events.  (448 does the same on a tmpfs, where the
# second CPU uses a temp file.)  A 12 MiB ext4 image, loop-mounted, holds a
# part of the trace.
. "$(dirname "$0")/../lib/common.sh"

[ "$(id -u)" = 0 ] || skip "mounting a loop device needs root"
[ "$(nproc)" -ge 2 ] || skip "one CPU: one region"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
P=$(prog threads "${STYLES%% *}")
truncate -s 12M ext4.img && mkfs.ext4 -q -F ext4.img 2>/dev/null || skip "cannot make an ext4 image"
mkdir small
mount -o loop ext4.img small 2>/dev/null || skip "cannot loop-mount an ext4 image here"
trap 'umount small 2>/dev/null' EXIT

"$UTRACE" record -o small/t.dat -p function_graph -- "$P" 4 100000 pin >full.out 2>full.err
st=$?
expect_eq "record's status (the program's)" 0 "$st"
check "the program ran to its end" grep -q '^threads total' full.out
grep -q 'writing small/t.dat failed: No space left on device' full.err ||
	fail "record did not say so: $(cat full.err)"
no_crash full.err
# the events the error kept out are said with it, not as buffer losses
grep -q 'events not written' full.err || fail "no count of the events not written: $(cat full.err)"
grep 'try a larger -b' full.err && fail "the events not written were called buffer losses"
report small/t.dat >r.out 2>r.err
st=$?
[ "$st" -le 1 ] || fail "report exited $st: $(cat r.err)"
n=$(grep -c 't_b();' r.out)
[ "$n" -gt 1000 ] || fail "report printed $n calls of t_b: $(head -3 r.err)"
[ "$n" -lt 800000 ] || fail "more calls than the disk could hold"
if command -v trace-cmd >/dev/null; then
	trace-cmd report small/t.dat >tc.out 2>tc.err || fail "trace-cmd report failed: $(tail -2 tc.err)"
	for c in 000 001; do
		grep -q "\[$c\].*funcgraph_entry" tc.out || fail "trace-cmd shows no event of CPU $c"
	done
fi
finish
