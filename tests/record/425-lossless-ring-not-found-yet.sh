#!/bin/bash
# Lossless record whose recorder is held up before it has found a thread's
# ring: each ring is opened only 2 s after its slot was first seen
# (UTRACE_TEST_OPEN_DELAY_US), so the thread fills its 64 KiB and waits on a
# ring no recorder has beaten (its beat is the runtime's own arming, odd).
# The configuration names the recorder (lossless_pid), which the runtime
# copies into the ring's consumer_pid when it arms it: the recorder still
# runs, so the thread goes on waiting, and every call is in the trace.
# Before, such a wait gave up after a second (UT_BP_STALE_NS) and the thread
# dropped events (35,922 of 40,003 here; likely record/447's in CI, whose
# recorder was held up for 3 s under strace while its threads began).
. "$(dirname "$0")/../lib/common.sh"

export UTRACE_TEST_OPEN_DELAY_US=2000000

P=$(prog threads gcc-pfe)
# one thread: t_thread 1, t_work N, t_a N, t_b 2N (16-byte records: 640 KB)
record w.dat -p function -b 64 -- "$P" 1 10000 || fail "record exited $?"
grep 'lost' w.dat.err && fail "losses said: $(cat w.dat.err)"
report w.dat >r.txt || fail "report: $(cat w.dat.rerr)"
expect "calls per function" <(events <r.txt | count_funcs) <<'EOF2'
main 1
t_a 10000
t_b 20000
t_main_done 1
t_thread 1
t_work 10000
EOF2
grep -q 'waited' w.dat.err || fail "the program never waited: the test tests nothing: $(cat w.dat.err)"
no_crash w.dat.err w.dat.rerr
finish
