#!/bin/bash
# The mount's trace_pipe when its reader is held up under thread churn: the
# daemon is stopped while 150 threads come and go (mount/525's program), so
# past the 64 MiB buffer_total_size_kb the oldest exited threads' buffers go
# to new threads unread (overwrite, as the kernel's ring overwrites).  What
# they held is told in "CPU:N [LOST M EVENTS]" lines: printed + told lost is
# every call, and every thread printed has its own calls under its own tid.
# (tests/live/532 does the same with show --pipe and no reader at all.)
. "$(dirname "$0")/mount.lib"

churn_pipe_start
kill -STOP "$_daemon"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog threadchurn gcc-pfe)" 150 1 tids </dev/null \
	>prog.txt 2>prog.err
st=$?
kill -CONT "$_daemon"
[ "$st" = 0 ] || fail "program exited $st"
churn_pipe_end
expect_eq "calls made" 450 "$want"
[ "$(lost_told pipe.txt)" -gt 0 ] || fail "no loss told ($printed calls printed of $want)"
expect_eq "calls printed + told lost" "$want" $((printed + $(lost_told pipe.txt)))
comm -23 got.txt want.txt >wrong.txt
expect "each printed thread's calls under its own tid" wrong.txt </dev/null
alive
finish
