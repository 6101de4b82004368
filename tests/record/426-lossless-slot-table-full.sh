#!/bin/bash
# Lossless record of a program that makes 10,000 short threads while its
# recorder passes over the rings only every 1.5 s
# (UTRACE_TEST_DRAIN_DELAY_US): all 4,096 thread slots fill with exited
# threads' data before the recorder comes back, and each new thread waits
# for it (libutrace/slots.c pick_waiting) -- its beats are stale, but the
# process that beat them runs.  Every call is in the trace.  Before, a
# claim waited a second in all and then gave the oldest exited slot to the
# new thread: 209,370 events lost here, and 4,347 in an ASan CI run of
# record/520, whose recorder was merely slow.
. "$(dirname "$0")/../lib/common.sh"

export UTRACE_TEST_DRAIN_DELAY_US=1500000

record c.dat -p function -- "$(prog threadchurn gcc-pfe)" 10000 10 || fail "record exited $?"
expect "stdout" c.dat.out <<'EOF2'
threadchurn 10000 threads total 1100000
EOF2
grep -E 'lost|not traced' c.dat.err && fail "record warned: $(cat c.dat.err)"
report c.dat | count_funcs >c.txt
expect "function counts" c.txt <<'EOF2'
c_done 1
c_leaf 100000
c_thread 10000
c_work 100000
main 1
EOF2
no_crash c.dat.err c.dat.rerr
finish
