#!/bin/bash
# A long `show --pipe` over many short processes (issue 17, readers bounded
# by what is alive): once a process is gone and all it wrote was printed,
# the reader lets its session go -- its control block unmapped, its state
# freed -- and does not take it up again while its session stays in the
# run-time directory.  60 processes one after another, each a thread
# calling c_work once: every call printed once, and the reader ends up
# mapping no control block.  Before, it kept one mapping per process it
# had seen (and saw no new process after 1,024).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

N=60
rm -rf run
check "start" "$UTRACE" start -p function -l c_work
"$UTRACE" show --pipe >pipe.txt 2>pipe.err &
rd=$!
# let the reader make its first pass before the first process comes and goes
# (an ASan build starts slowly: that process's one call was missed in CI)
sleep 1
P=$(prog threadchurn gcc-pfe)
for ((k = 0; k < N; k++)); do
	LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 1 1 >/dev/null || fail "program $k exited $?"
done
for ((i = 0; i < 1000; i++)); do # until the reader printed them all (10 s at most)
	[ "$(grep -c ' c_work <-' pipe.txt)" -ge $N ] && break
	sleep 0.01
done
expect_eq "sessions left in the run-time dir" $N "$(ls run | grep -c '^[0-9]')"
# until the reader let them go (10 s at most; the count, not the time, is checked)
ctls() { grep -c '/ctl\( (deleted)\)\?$' /proc/$rd/maps; }
for ((i = 0; i < 1000; i++)); do
	[ "$(ctls)" -le 1 ] && break
	sleep 0.01
done
n=$(ctls)
[ "$n" -le 1 ] || fail "show --pipe maps $n control blocks after $N processes ended"
kill -INT $rd
wait $rd 2>/dev/null
expect_eq "every call once" $N "$(grep -c ' c_work <-' pipe.txt)"
expect_eq "every process" $N "$(grep ' c_work <-' pipe.txt | sed -E 's/^ *.*-([0-9]+) +\[.*/\1/' | sort -u | wc -l)"
no_crash pipe.err
finish
