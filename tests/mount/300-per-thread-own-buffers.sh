#!/bin/bash
# processes/PID/per_thread/TID/{trace,trace_pipe} read that thread's buffers
# only: another thread's buffer that is refused (group-writable) does not
# stop them (the process's own trace, which reads every buffer, is refused),
# and the pipe prints and consumes only its thread's events.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo st_step >set_ftrace_filter
echo function >current_tracer
send s1 "hammer 3"
wait_for s1 '^hammered '
D=$(ls -d "$UTRACE_DIR/$P".* | head -n 1)
# the thread of buf.N (the header's tid: 4 bytes at offset 16)
tid_of() { od -An -t d4 -j 16 -N 4 "$D/buf.$1" | tr -d ' '; }
T0=$(tid_of 0)
T1=$(tid_of 1)
[ -n "$T0" ] && [ -n "$T1" ] && [ "$T0" != "$T1" ] || fail "buffers: '$T0' '$T1'"
chmod 0660 "$D/buf.0"
cat processes/$P/trace >/dev/null 2>"$TOP/err.txt" && fail "the process's trace was not refused"

T=processes/$P/per_thread/$T1
cat $T/trace >"$TOP/t.txt" 2>"$TOP/t.err" || fail "thread trace: $(cat "$TOP/t.err")"
mask <"$TOP/t.txt" >"$TOP/tm.txt"
expect "thread trace" "$TOP/tm.txt" <<'EOF'
# tracer: function
#
# entries-in-buffer/entries-written: 3/3   #P:<N>
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
server-<PID> [<CPU>] ..... <TS>: st_step <-hammer_thread
server-<PID> [<CPU>] ..... <TS>: st_step <-hammer_thread
server-<PID> [<CPU>] ..... <TS>: st_step <-hammer_thread
EOF
expect_eq "that thread" "$T1" "$(events <"$TOP/t.txt" | sed -E 's/^ *[^ ]*-([0-9]+) .*/\1/' | sort -u)"

timeout 1 cat $T/trace_pipe >"$TOP/p.txt" 2>"$TOP/p.err"
expect_eq "thread pipe" 3 "$(grep -c 'st_step <-hammer_thread' "$TOP/p.txt")"
expect_eq "thread pipe: that thread" "$T1" "$(sed -E 's/^ *[^ ]*-([0-9]+) .*/\1/' "$TOP/p.txt" | sort -u)"
expect_eq "consumed" 0 "$(events <$T/trace | wc -l)"
chmod 0600 "$D/buf.0"
expect_eq "the others stay" 9 "$(grep -c 'st_step <-hammer_thread' processes/$P/trace)"
alive
finish
