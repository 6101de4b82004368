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
. "$UT_TESTS/lib/diskfull.sh"

[ "$(id -u)" = 0 ] || skip "mounting a loop device needs root"
[ "$(nproc)" -ge 2 ] || skip "one CPU: one region"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
P=$(prog threads "${STYLES%% *}")
truncate -s 12M ext4.img && mkfs.ext4 -q -F ext4.img 2>/dev/null || skip "cannot make an ext4 image"
mkdir small
mount -o loop ext4.img small 2>/dev/null || skip "cannot loop-mount an ext4 image here"
trap 'umount small 2>/dev/null' EXIT

full_disk_record small "$P" both
finish
