#!/bin/bash
# Top-level writes while traced processes come and go: a traced shell
# starts a short-lived traced `sleep` every millisecond or so, and each
# write to a top-level file (events/enable, an event's enable,
# current_tracer) edits every live process.  A process listed alive whose
# session is gone by the time it is written to has exited: it is skipped,
# as one found dead, and the write succeeds.  (Its session removed between
# the listing and the write, the write failed with ENOENT: 6 of 450 here.)
. "$(dirname "$0")/mount.lib"

do_mount
LD_PRELOAD=$UT_BUILD/libutrace.so sh -c 'trap : USR1; while :; do kill -USR1 $$; sleep 0.001; done' \
	>/dev/null 2>&1 &
_server_pids+=($!)
cd "$MNT" || exit 1
: >"$TOP/w.err"
# 150 rounds, or as many as 45 s allow (under ASan every traced `sleep`
# starts slowly, more of them are alive at each write, and the 150 took
# longer than the test's 120 s on a slower 2-core machine)
for ((i = 0; i < 150 && SECONDS < 45; i++)); do
	echo 0 >events/enable 2>>"$TOP/w.err"
	echo 1 >events/signal/signal_generate/enable 2>>"$TOP/w.err"
	echo nop >current_tracer 2>>"$TOP/w.err"
done
sort "$TOP/w.err" | uniq -c >"$TOP/errs.txt"
expect "write errors" "$TOP/errs.txt" </dev/null
grep -q 'signal_generate: sig=10' trace || fail "the churning shell's signals are not in the trace"
finish
