#!/bin/bash
# The snapshot file (issue 13), as the kernel's: freed at first (the
# tracer line and the kernel's help, "Snapshot is freed"); `echo 1` allocates
# it and takes what the buffers hold, which leave `trace`; `cat snapshot`
# shows them as `trace` did; an empty one shows the help with "Snapshot is
# allocated"; `echo 2` clears it; `echo 0` frees it; junk is EINVAL.  The
# same in processes/PID/ and in an instance.  The snapshot trigger (with a
# count and a filter) allocates it when written and swaps at the hit.
. "$(dirname "$0")/mount.lib"

do_mount
start_server u "$(prog usdt gcc-pfe)" -i
U=$(pid_of u)
cd "$MNT" || exit 1

expect "freed at first" snapshot <<'EOF2'
# tracer: nop
#
#
# * Snapshot is freed *
#
# Snapshot commands:
# echo 0 > snapshot : Clears and frees snapshot buffer
# echo 1 > snapshot : Allocates snapshot buffer, if not already allocated.
#                      Takes a snapshot of the main buffer.
# echo 2 > snapshot : Clears snapshot buffer (but does not allocate or free)
#                      (Doesn't have to be '2' works with any number that
#                       is not a '0' or '1')
EOF2
expect_eq "allocate, nothing to take" OK "$(w snapshot 1)"
expect_eq "allocated and empty" "# * Snapshot is allocated *" "$(grep 'Snapshot is' snapshot)"
expect_eq "enable pair" OK "$(w set_event utest:pair)"
echo >trace
run_req u 2
grep -v '^#' trace >"$TOP/before.txt"
expect_eq "two events in trace" 2 "$(grep -c 'pair:' "$TOP/before.txt")"
expect_eq "take a snapshot" OK "$(w snapshot 1)"
expect_eq "trace emptied" 0 "$(grep -v '^#' trace | grep -c .)"
grep -v '^#' snapshot >"$TOP/snap.txt"
expect "the snapshot holds what trace held" "$TOP/snap.txt" <"$TOP/before.txt"
expect_eq "with trace's header" "# tracer: nop" "$(head -n 1 snapshot)"
run_req u 1
expect_eq "new events go to trace" 1 "$(grep -v '^#' trace | grep -c 'pair:')"
expect_eq "the snapshot kept" 2 "$(grep -v '^#' snapshot | grep -c 'pair:')"
expect_eq "echo 2 clears" OK "$(w snapshot 2)"
expect_eq "cleared, still allocated" "# * Snapshot is allocated *" "$(grep 'Snapshot is' snapshot)"
expect_eq "trace untouched by 2" 1 "$(grep -v '^#' trace | grep -c 'pair:')"
expect_eq "echo 0 frees" OK "$(w snapshot 0)"
expect_eq "freed" "# * Snapshot is freed *" "$(grep 'Snapshot is' snapshot)"
expect_eq "junk" EINVAL "$(w snapshot x)"
expect_eq "negative" EINVAL "$(w snapshot -1)"

# one process's own
echo >trace
run_req u 1
expect_eq "processes/PID: take" OK "$(w "processes/$U/snapshot" 1)"
expect_eq "its snapshot" 1 "$(grep -v '^#' "processes/$U/snapshot" | grep -c 'pair:')"
expect_eq "the top level's is its own" "# * Snapshot is freed *" "$(grep 'Snapshot is' snapshot)"
expect_eq "the process's trace emptied" 0 "$(grep -v '^#' "processes/$U/trace" | grep -c .)"
mkdir instances/snap || fail "mkdir instances/snap"
expect_eq "an instance's" "# * Snapshot is freed *" "$(grep 'Snapshot is' instances/snap/snapshot)"
expect_eq "an instance: allocate" OK "$(w instances/snap/snapshot 1)"
expect_eq "allocated there" "# * Snapshot is allocated *" "$(grep 'Snapshot is' instances/snap/snapshot)"
rmdir instances/snap

# the snapshot trigger: fires in the process, taken by the mount at its next read
expect_eq "freed again" OK "$(w snapshot 0)"
expect_eq "a snapshot trigger" OK "$(w events/utest/pair/trigger 'snapshot:1 if arg1 > 0')"
expect_eq "listed" "snapshot:count=1 if arg1 > 0" "$(cat events/utest/pair/trigger)"
expect_eq "writing it allocated the snapshot" "# * Snapshot is allocated *" "$(grep 'Snapshot is' snapshot)"
echo >trace
run_req u 2
expect_eq "fired once" "snapshot:count=0 if arg1 > 0" "$(cat events/utest/pair/trigger)"
# taken at the hit (after its event's record, as the kernel's filtered trigger): the
# second hit came after it and stays in the live trace (tests/mount/921: exactly)
expect_eq "the snapshot holds the trace at the hit" 1 "$(grep -v '^#' snapshot | grep -c 'pair:')"
expect_eq "the next hit stays in trace" 1 "$(grep -v '^#' trace | grep -c 'pair:')"
run_req u 1
expect_eq "count spent: trace keeps the next" 2 "$(grep -v '^#' trace | grep -c 'pair:')"
expect_eq "the snapshot unchanged" 1 "$(grep -v '^#' snapshot | grep -c 'pair:')"
expect_eq "remove it" OK "$(a events/utest/pair/trigger '!snapshot')"
alive
finish
