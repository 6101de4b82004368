#!/bin/bash
# `echo > trace` forgets every loss before it, as the kernel's reset zeroes
# its overrun counters: entries-written counts from the clear, whether the
# losses were counted in a ring (it lapped) or away from it, when a slot's
# buffer went to another thread with records unread (ctl.recycled_lost[]:
# here after a resize past buffer_total_size_kb; before, such losses stayed
# in entries-written after every clear).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
cd "$MNT" || exit 1

echo function >current_tracer
# far more than the 2 MiB ring holds: it laps (overwrite mode)
run_req s1 100000
written() { sed -n 's|^# entries-in-buffer/entries-written: \([0-9]*\)/\([0-9]*\) .*|\1 \2|p' trace; }
read -r e w < <(written)
[ "$w" -gt "$e" ] || fail "lapped: entries-written $e/$w"
# a resize moves the thread to a new ring at its next event, 64 MiB: the
# process's buffers then pass buffer_total_size_kb, and slots with unread
# records are handed over
echo 65536 >buffer_size_kb
run_req s1 1
read -r e w < <(written)
[ "$w" -gt "$e" ] || fail "after the move: entries-written $e/$w"
echo >trace
expect_eq "cleared" "0 0" "$(written)"
check "no loss shown after the clear" sh -c '! grep -q LOST trace'
run_req s1 1
read -r e w < <(written)
[ "$e" -gt 0 ] && [ "$w" = "$e" ] || fail "one request after the clear: entries-written $e/$w"
# the same once the process is gone (its session kept, trace read from it)
run_req s1 100000
send s1 crash
for ((i = 0; i < 100; i++)); do kill -0 "$(pid_of s1)" 2>/dev/null || break; sleep 0.05; done
read -r e w < <(written)
[ "$w" -ge "$e" ] && [ "$e" -gt 0 ] || fail "the process gone: entries-written $e/$w"
echo >trace
expect_eq "cleared, the process gone" "0 0" "$(written)"
finish
