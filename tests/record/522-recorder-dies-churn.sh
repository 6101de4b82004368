#!/bin/bash
# A recorder that dies while its program creates threads (10,000, one after
# another: the thread table fills with data nobody will take) does not hold
# the program up: each new thread sees that no recorder beats the buffers
# any more and takes the oldest exited slot at once.  It used to scan the
# whole table and probe every slot's thread with a system call for each new
# thread: half an hour for this program, which takes a third of a second.
# (A hang check, not a timing: the bound is two orders of magnitude away.)
# Each claim looks at a bounded number of exited slots (the control block's
# slot_looks counter): it looked at the whole table several times (17,000
# slots per thread here, 6 s for this program instead of 0.3; now ~300).
. "$(dirname "$0")/../lib/common.sh"

S=${STYLES%% *}
P=$(prog threadchurn "$S")
"$UTRACE" record -o k.dat -p function -- "$P" 10000 10 >k.out 2>k.err &
rec=$!
for ((i = 0; i < 200; i++)); do # until the program runs
	ppid=$(pgrep -P $rec -f "^$P 10000") && break
	sleep 0.01
done
# the program's control block, held open: once the program has ended too,
# a `utrace reset` of a test running beside this one removes the
# recording's dir (its recorder and processes are gone)
for ((i = 0; i < 200; i++)); do
	ctl=$(ls -d /dev/shm/utrace-"$(id -u)"/rec.*/"$ppid".*/ctl 2>/dev/null | head -1)
	[ -n "$ctl" ] && exec 9<"$ctl" && break
	sleep 0.01
done
sleep 0.2
kill -9 $rec
wait $rec 2>/dev/null
for ((i = 0; i < 600; i++)); do
	kill -0 "$ppid" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "$ppid" 2>/dev/null; then
	kill -9 "$ppid"
	fail "the program was still running 60 s after its recorder died"
fi
expect_eq "the program's result" "threadchurn 10000 threads total 1100000" "$(cat k.out)"
# the record's private run-time dir stays (its recorder was killed): the
# program's control block, then the dir goes
[ -n "$ctl" ] || fail "no session of $ppid"
looks=$(ctl_counter slot_looks /proc/$$/fd/9)
exec 9<&-
[ "${looks:-0}" -gt 0 ] && [ "$looks" -le $((10000 * 2000)) ] ||
	fail "claims looked at ${looks:-no} exited slots for 10,000 threads"
[ -n "$ctl" ] && rm -rf "$(dirname "$(dirname "$ctl")")"
finish
