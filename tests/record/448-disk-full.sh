#!/bin/bash
# A full disk mid-run, with both CPUs writing (threads pinned): record says
# so, the program runs on to its end (untraced from the error on), and what
# was written before is a whole trace.dat: every CPU gives up the same share
# of its newest chunks until the tail fits (the temp file's too).  (Both
# CPUs' events are checked on ext4, record/450: here the second CPU's temp
# file is on the full disk too, and its first chunk may not have fit.)  A 3 MiB tmpfs holds a third of
# the trace (tmpfs cannot collapse holes: the second CPU writes to a temp
# file there, as on any file system without COLLAPSE_RANGE).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/diskfull.sh"

[ "$(id -u)" = 0 ] || skip "mounting a tmpfs needs root"
[ "$(nproc)" -ge 2 ] || skip "one CPU: one region"
P=$(prog threads "${STYLES%% *}")
mkdir small
mount -t tmpfs -o size=3m tmpfs small 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount small 2>/dev/null' EXIT

full_disk_record small "$P"
finish
