#!/bin/bash
# The mount's readers are bounded by what they read: a process ran 1200
# short threads one after another and exited, leaving 1200 buffers.
# Reading `trace` opens no file per buffer in the daemon and prints every
# call; trace_pipe, once it has told all a dead thread wrote, lets its
# buffer go (the daemon maps no buffer while the pipe stays open), and
# every call came through it once.
. "$(dirname "$0")/mount.lib"

N=1200
do_mount
cd "$MNT" || exit 1
echo 'sq_*' >set_ftrace_filter
echo 16 >buffer_size_kb # small rings: all the exited threads' fit under buffer_total_size_kb
echo function >current_tracer
cd "$TOP" || exit 1
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog seqthreads gcc-pfe)" $N 3 </dev/null >prog.out ||
	fail "program"
expect_eq "program" "threads $N 7800" "$(cat prog.out)"

base=$(ls /proc/$_daemon/fd | wc -l)
cat "$MNT/trace" >trace.txt || fail "cat trace"
nfd=$(ls /proc/$_daemon/fd | wc -l)
# (a read holds the spool only while it reads; the FUSE channel may come and go)
[ "$nfd" -le $((base + 2)) ] || fail "the daemon holds $nfd files (had $base) after a trace read"
count_funcs <trace.txt >c.txt
expect "trace: every call" c.txt <<EOF
sq_done 1
sq_thread $N
sq_work $((3 * N))
EOF

# trace_pipe: consumes them all, then waits for more with the pipe open
cat "$MNT/trace_pipe" >pipe.txt &
reader=$!
for ((i = 0; i < 400; i++)); do
	[ "$(wc -l <pipe.txt)" -ge $((4 * N + 1)) ] && break
	sleep 0.05
done
sleep 0.2 # the formatter has told the dead threads' ends
mapped=$(grep -c '/buf\.' /proc/$_daemon/maps)
say "daemon: $nfd files open after trace ($base before), $mapped buffers mapped with trace_pipe open"
[ "$mapped" -le 2 ] || fail "the daemon keeps $mapped dead threads' buffers mapped"
kill $reader
wait $reader 2>/dev/null
count_funcs <pipe.txt >p.txt
expect "trace_pipe: every call" p.txt <<EOF
sq_done 1
sq_thread $N
sq_work $((3 * N))
EOF
alive
finish
