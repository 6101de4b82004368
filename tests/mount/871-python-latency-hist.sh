#!/bin/bash
# The showcase of issue 13, item 5 in the mount: python3.11's
# function__entry to function__return latency as synthetic event pylat
# (ts0 per thread and function, read once by the return's onmatch()), and
# a hist on pylat keyed on the line: foo (line 5000) and bar (5001) count
# exactly their calls, in the interpreter's shared table; the trigger
# files read back as the kernel prints them.
. "$(dirname "$0")/mount.lib"

py=/usr/bin/python3.11
[ -x "$py" ] || skip "no $py"
"$UTRACE" list -e "$py" | has '^python:function__return ' || skip "$py has no function__return probe"
do_mount
{
	echo 'import sys'
	echo 'sys.setprofile(lambda *a: None)'
	for ((i = 3; i < 5000; i++)); do echo; done
	echo 'def foo(x): return x'
	echo 'def bar(x): return x'
	echo 'print("ready", flush=True)'
	echo 'for line in sys.stdin:'
	echo '    for i in range(int(line)): foo(i)'
	echo '    for i in range(3): bar(i)'
	echo '    print("done", line.strip(), flush=True)'
} >"$TOP/s.py"
mkfifo "$TOP/p.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$py" -S "$TOP/s.py" <"$TOP/p.in" >"$TOP/p.out" 2>"$TOP/p.err" &
P=$!
_server_pids+=("$P")
exec {_fd_p}>"$TOP/p.in"
wait_for p '^ready$'
cd "$MNT" || exit 1

expect_eq "define pylat" OK "$(a synthetic_events 'pylat u64 lat; s32 lineno')"
expect_eq "ts0 on entry" OK \
	"$(a events/python/function__entry/trigger 'hist:keys=common_pid,funcname:ts0=common_timestamp.usecs')"
expect_eq "onmatch on return" OK \
	"$(a events/python/function__return/trigger 'hist:keys=common_pid,funcname:lat=common_timestamp.usecs-$ts0:onmatch(python.function__entry).trace(pylat,$lat,lineno)')"
expect_eq "a hist on pylat" OK \
	"$(a events/synthetic/pylat/trigger 'hist:keys=lineno:vals=hitcount:sort=lineno if lineno >= 5000')"
send p 7
wait_for p '^done 7$'
expect "pylat's hist: the calls of foo and bar" events/synthetic/pylat/hist <<'EOF2'
# event histogram
#
# trigger info: hist:keys=lineno:vals=hitcount:sort=lineno:size=2048 if lineno >= 5000 [active]
#

{ lineno:       5000 } hitcount:          7
{ lineno:       5001 } hitcount:          3

Totals:
    Hits: 10
    Entries: 2
    Dropped: 0
EOF2
expect "the return's trigger" events/python/function__return/trigger <<'EOF2'
hist:keys=common_pid,funcname:vals=hitcount:lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(python.function__entry).trace(pylat,$lat,lineno) [active]
EOF2
exec {_fd_p}>&-
wait "$P" 2>/dev/null
finish
