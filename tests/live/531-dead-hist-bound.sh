#!/bin/bash
# Dead processes' sessions that hold only a hist table (a template's hist
# trigger, no event recorded) count the table's bytes toward the bound on
# what dead sessions keep (live/529): processes starting and exiting all
# day under a hist trigger once kept every table (23 GB of /dev/shm, then
# the OOM killer).  Four dead sessions of one table each, a bound of one
# table and a half (UTRACE_TEST_DEAD_KEEP_KB): the next process keeps the
# newest only.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

sess() { ls run | grep -E '^[0-9]+\.[0-9]+$' | sort -t. -k2 -n; }
rm -rf run
# the event is not recorded (not enabled), the trigger counts each exit's SIGCHLD
check "start" "$UTRACE" start --trigger 'signal:signal_generate hist:keys=sig'
for ((k = 0; k < 4; k++)); do
	LD_PRELOAD=$UT_BUILD/libutrace.so /bin/true || fail "program $k exited $?"
done
sess >before.txt
expect_eq "four dead sessions" 4 "$(wc -l <before.txt)"
for s in $(cat before.txt); do
	[ -f "run/$s/hist.0" ] || fail "$s: no hist table"
done
kb=$(du -k "run/$(head -1 before.txt)/hist.0" | cut -f1)
touch -d '2 seconds ago' run/.gc
UTRACE_TEST_DEAD_KEEP_KB=$((kb * 3 / 2)) LD_PRELOAD=$UT_BUILD/libutrace.so /bin/true ||
	fail "fifth program exited $?"
sess >after.txt
tail -1 before.txt >want.txt
grep -xF -f before.txt after.txt >kept.txt
expect "the newest table kept, the older ones removed" kept.txt <want.txt
finish
