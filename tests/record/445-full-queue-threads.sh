#!/bin/bash
# Threads that share a writer whose queue fills: the queue holds chunks of
# the busy threads, which wait for the watermark, and the watermark waits
# for a thread whose data could not get into the full queue.  The writer
# copies the held chunks out and gives the queue back, so the late thread's
# data gets in: no event is lost and nothing hangs.  (Each thread's wait
# used to end after a second, dropping its events: a lossless record lost
# nearly all the events of one run in fifteen of bench/run's threads
# workload; without the cap it hung.)  Test hooks: UTRACE_TEST_QUEUE_BLOCKS=1
# (a 2 MiB queue), UTRACE_TEST_WRITE_DELAY_US (a writer behind).
. "$(dirname "$0")/../lib/common.sh"

S=${STYLES%% *}
P=$(prog threads "$S")
export UTRACE_TEST_QUEUE_BLOCKS=1 UTRACE_TEST_WRITE_DELAY_US=300
timeout 300 "$UTRACE" record -o q.dat -b 64 -p function_graph -- "$P" 4 200000 >q.out 2>q.err
st=$?
[ $st = 124 ] && fail "record hung (killed after 300 s)"
expect_eq "record's status" 0 "$st"
grep -q 'lost' q.err && fail "record lost events: $(cat q.err)"
"$UTRACE" report -i q.dat >q.txt 2>q.rerr || fail "report exited $?: $(cat q.rerr)"
expect_eq "t_work calls" 800000 "$(grep -c 't_work() {' q.txt)"
no_crash q.err
finish
