#!/bin/bash
# trace_pipe tells what the runtime gave up with a reused slot.  Past
# buffer_total_size_kb a new thread takes the buffer of the thread that
# exited first, its unread events counted in the control block
# (ctl.recycled_lost[]), not in any ring: `show` counted them, but
# `show --pipe` and the mount's trace_pipe said nothing -- events gone
# without a word.  Now a LOST line tells them, before the next event of the
# process (the kernel's trace_pipe tells an overrun the same way), and
# printed + lost is every call.  150 threads one after another, thread i
# calling c_work 1 + i % 5 times (450 calls), with no reader until the end,
# in 8 MiB of buffers.  Told once: a second reader of a live process does
# not tell them again (the control block records what a reader told).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

rm -rf run
check "start" "$UTRACE" start -p function -l c_work --buffer-total 8192
P=$(prog threadchurn gcc-pfe)
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 150 1 tids >prog.txt 2>prog.err || fail "program exited $?"
want=$(awk '/^tid / {n += $4} END {print n}' prog.txt)
expect_eq "calls made" 450 "$want"
ctl=$(ls run/*/ctl | head -1)
[ "$(ctl_counter slots_reused "$ctl")" -ge 50 ] || fail "slots reused: $(ctl_counter slots_reused "$ctl")"

"$UTRACE" show --pipe >pipe.txt 2>pipe.err &
rd=$!
for ((i = 0; i < 500; i++)); do # until it printed the rest and its losses (5 s at most)
	[ $(($(grep -c ' c_work <-' pipe.txt) + $(lost_told pipe.txt))) -ge "$want" ] && break
	sleep 0.01
done
kill -INT $rd
wait $rd 2>/dev/null
printed=$(grep -c ' c_work <-' pipe.txt)
[ "$(lost_told pipe.txt)" -gt 0 ] || fail "show --pipe: no loss told ($printed calls printed of $want)"
expect_eq "show --pipe: printed + lost = every call" "$want" $((printed + $(lost_told pipe.txt)))
# a second reader finds nothing more: the events were taken, the losses told
timeout -s INT 1 "$UTRACE" show --pipe >pipe2.txt 2>/dev/null
expect_eq "a second show --pipe: nothing left" "0 0" "$(grep -c ' c_work <-' pipe2.txt) $(lost_told pipe2.txt)"
no_crash pipe.err

# A process that goes on: 4 threads of 1000 calls, then 4 more that take
# their buffers (4 MiB in all: two) before anyone read them.
"$UTRACE" stop
rm -rf run
check "start (server)" "$UTRACE" start -p function -l st_step --buffer-total 4096
server_start gcc-pfe
server_cmd "hammer 1000"
server_cmd "hammer 1000"
"$UTRACE" show --pipe >p1.txt 2>p1.err &
rd=$!
for ((i = 0; i < 500; i++)); do
	[ $(($(grep -c ' st_step <-' p1.txt) + $(lost_told p1.txt))) -ge 8000 ] && break
	sleep 0.01
done
kill -INT $rd
wait $rd 2>/dev/null
[ "$(lost_told p1.txt)" -ge 1000 ] || fail "server: $(lost_told p1.txt) lost told"
expect_eq "server: printed + lost" 8000 $(($(grep -c ' st_step <-' p1.txt) + $(lost_told p1.txt)))
# a second reader, then 40 new calls: those, printed or told lost (threads
# that exit past the bound give their buffers back, unread ones too), and
# nothing told again
"$UTRACE" show --pipe >p2.txt 2>/dev/null &
rd=$!
sleep 0.3
server_cmd "hammer 10"
for ((i = 0; i < 500; i++)); do
	[ $(($(grep -c ' st_step <-' p2.txt) + $(lost_told p2.txt))) -ge 40 ] && break
	sleep 0.01
done
sleep 0.1
kill -INT $rd
wait $rd 2>/dev/null
expect_eq "server, a second reader: the new calls, printed + lost, no loss told again" 40 \
	$(($(grep -c ' st_step <-' p2.txt) + $(lost_told p2.txt)))
server_stop
no_crash p1.err
finish
