#!/bin/bash
# The snapshot as the kernel's: a second buffer swapped with the live one
# (issue 13, item 5).  A `snapshot` trigger takes the trace as it was at
# its hit: the snapshot holds the events up to the hit (the triggering
# one included: triggers run after its record, as the kernel's with a
# filter), no later one, and the live trace goes on with those.  `echo 1`
# swaps: the snapshot gets what the live buffer held, and the live buffer
# what the snapshot held (the earlier snapshot's events, then the new
# ones), each file's header counting them; `echo 2` clears the snapshot,
# so the next swap leaves the live buffer empty; `echo > trace` or a new
# clock empties it.
. "$(dirname "$0")/mount.lib"

do_mount
start_server u "$(prog usdt gcc-pfe)" -i
cd "$MNT" || exit 1

# the pair events of a trace file, by their arg1; and its header's counts
args() { grep -v '^#' "$1" | sed -nE 's/.*: pair: arg1=([0-9]+) .*/\1/p' | tr '\n' ' '; }
counts() { sed -nE 's/^# entries-in-buffer\/entries-written: ([0-9]+\/[0-9]+) .*/\1/p' "$1"; }

expect_eq "enable pair" OK "$(w set_event utest:pair)"
echo >trace
run_req u 3
expect_eq "the trigger" OK "$(w events/utest/pair/trigger 'snapshot:1 if arg1 == 4')"
run_req u 4
expect_eq "the snapshot: the trace at the hit (arg1 == 4)" "0 1 2 3 4 " "$(args snapshot)"
expect_eq "its header" "5/5" "$(counts snapshot)"
expect_eq "the live trace goes on after the hit" "5 6 " "$(args trace)"
expect_eq "its header" "2/2" "$(counts trace)"
expect_eq "the count spent" "snapshot:count=0 if arg1 == 4" "$(cat events/utest/pair/trigger)"

expect_eq "echo 1: swap" OK "$(w snapshot 1)"
expect_eq "the snapshot: what the live buffer held" "5 6 " "$(args snapshot)"
expect_eq "the live buffer: what the snapshot held" "0 1 2 3 4 " "$(args trace)"
expect_eq "its header counts them" "5/5" "$(counts trace)"
run_req u 1
expect_eq "new events after them" "0 1 2 3 4 7 " "$(args trace)"
expect_eq "header" "6/6" "$(counts trace)"
expect_eq "the snapshot kept" "5 6 " "$(args snapshot)"

expect_eq "echo 2: clear" OK "$(w snapshot 2)"
expect_eq "cleared, allocated" "# * Snapshot is allocated *" "$(grep 'Snapshot is' snapshot)"
expect_eq "echo 1 again" OK "$(w snapshot 1)"
expect_eq "the snapshot: the whole live buffer" "0 1 2 3 4 7 " "$(args snapshot)"
expect_eq "the live buffer: the cleared snapshot, nothing" "" "$(args trace)"
run_req u 1
expect_eq "and then new events" "8 " "$(args trace)"
expect_eq "echo 1 once more" OK "$(w snapshot 1)"
expect_eq "the live buffer gets them back" "0 1 2 3 4 7 " "$(args trace)"
expect_eq "the same clock again" OK "$(w trace_clock local)"
expect_eq "changes nothing" "0 1 2 3 4 7 " "$(args trace)"
expect_eq "another clock" OK "$(w trace_clock global)"
expect_eq "empties the live buffer, as in the kernel" "" "$(args trace)"
expect_eq "back to local" OK "$(w trace_clock local)"
run_req u 1
echo >trace
expect_eq "echo > trace empties it all" "" "$(args trace)"
expect_eq "header" "0/0" "$(counts trace)"
expect_eq "the snapshot untouched" "8 " "$(args snapshot)"
expect_eq "echo 0: freed" OK "$(w snapshot 0)"
expect_eq "freed" "# * Snapshot is freed *" "$(grep 'Snapshot is' snapshot)"
expect_eq "remove the trigger" OK "$(a events/utest/pair/trigger '!snapshot')"
alive
finish
