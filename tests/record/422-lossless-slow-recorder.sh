#!/bin/bash
# Lossless record with a recorder slower than the wait limit: once it has
# beaten its rings, each drain pass sleeps 1.5 s (UTRACE_TEST_DRAIN_DELAY_US
# with _LATE), past UT_BP_STALE_NS (1 s) of silence.  The recorder's process
# still runs, so a waiting thread goes on waiting (it checks the pid the
# recorder writes into the ring's header, ut_buf_hdr.consumer_pid): every
# call is in the trace and nothing is said lost.  Before, each wait gave up
# after a second of silence and the thread dropped events (a recorder
# starved on a busy machine: record/447).  A stopped or killed recorder is
# still given up on after a second: record/421.
. "$(dirname "$0")/../lib/common.sh"

export UTRACE_TEST_DRAIN_DELAY_US=1500000 UTRACE_TEST_DRAIN_DELAY_LATE=1

P=$(prog single gcc-pfe)
# main 1 + s_top 1 + s_middle 3000 + s_leaf 6001: 9003 records of 16 bytes,
# a 64 KiB buffer filled about twice more after the first beat
record w.dat -p function -b 64 -- "$P" 3000 || fail "record exited $?"
expect "stdout" w.dat.out <<'EOF2'
single 9003001
EOF2
grep 'lost' w.dat.err && fail "losses said: $(cat w.dat.err)"
report w.dat | sed -n 3p | sed -E 's/#P:[0-9]+/#P:N/' >h.txt
expect "every event" h.txt <<'EOF2'
# entries-in-buffer/entries-written: 9003/9003   #P:N
EOF2
grep -q 'waited' w.dat.err || fail "the program never waited: the test tests nothing: $(cat w.dat.err)"
no_crash w.dat.err w.dat.rerr
finish
