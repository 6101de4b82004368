#!/bin/bash
# trace_pipe under thread churn (issue 17): a slot reused by a new thread
# (the last one's data taken by the reader, so the runtime hands its
# buffer on) prints the new thread's events under the new thread's tid.
# The program makes 150 threads one after another, thread i calling c_work
# 1 + i % 5 times, and says which tid made how many calls; `show --pipe`
# and the mount's trace_pipe must tell the same, tid by tid.  Before, the
# reader kept the slot's first tid and printed every later thread's events
# under it (the counts were right, the tids not).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

rm -rf run
check "start" "$UTRACE" start -p function -l c_work
"$UTRACE" show --pipe >pipe.txt 2>pipe.err &
rd=$!
P=$(prog threadchurn gcc-pfe)
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 150 1 tids >prog.txt 2>prog.err || fail "program exited $?"
churn_want
for ((i = 0; i < 1000; i++)); do # until the reader printed them all (10 s at most)
	[ "$(grep -c ' c_work <-' pipe.txt)" -ge "$want" ] && break
	sleep 0.01
done
kill -INT $rd
wait $rd 2>/dev/null
# the slots were reused (else this test shows nothing)
ctl=$(ls run/*/ctl | head -1)
reused=$(ctl_counter slots_reused "$ctl")
[ "${reused:-0}" -ge 50 ] || fail "only ${reused:-0} slots reused"
churn_tids pipe.txt >got.txt
expect "show --pipe: each thread's calls under its own tid" got.txt <want.txt
no_crash pipe.err
finish
