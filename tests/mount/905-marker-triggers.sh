#!/bin/bash
# trace_marker is the kernel's ftrace:print event (issue 13): its
# events/ftrace/print/ has the kernel's filter, trigger and hist files, and
# a write to trace_marker fires the triggers, at the top level and under
# processes/PID/ (the mount, the writer, runs them: tracefs/marker_trig.c).
# traceoff/traceon with :N and `if` on common_pid, hist keyed on
# common_pid (the self-test trigger-trace-marker-hist.tc's) with :pause,
# :continue and :clear, snapshot, enable_event/disable_event; a program's
# own utrace_marker() fires them in the program.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s
P=$(pid_of s)
cd "$MNT" || exit 1
T=events/ftrace/print/trigger
H=events/ftrace/print/hist

expect_eq "the kernel's files" "filter format hist id trigger" "$(echo $(ls events/ftrace/print))"
expect_eq "no trigger yet" "# Available triggers:" "$(head -n 1 $T)"
expect_eq "no hist yet" "" "$(cat $H)"

# hist keyed on the writer (this shell: echo is a builtin)
expect_eq "hist" OK "$(w $T 'hist:keys=common_pid')"
for i in 1 2 3 4 5 6 7 8 9 10; do echo "hello $i" >trace_marker; done
sed "s/common_pid: *$$ /common_pid: SHELL /" $H >"$TOP/h.txt"
expect "ten markers, one writer" "$TOP/h.txt" <<'EOF2'
# event histogram
#
# trigger info: hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]
#

{ common_pid: SHELL } hitcount:         10

Totals:
    Hits: 10
    Entries: 1
    Dropped: 0
EOF2
expect_eq "the markers are recorded too" 10 "$(grep -c 'tracing_mark_write: hello' trace)"
expect_eq "pause" OK "$(a $T 'hist:keys=common_pid:pause')"
echo paused >trace_marker
expect_eq "paused: not counted" "    Hits: 10" "$(grep Hits: $H)"
expect_eq "continue" OK "$(a $T 'hist:keys=common_pid:cont')"
echo counted >trace_marker
expect_eq "counted again" "    Hits: 11" "$(grep Hits: $H)"
expect_eq "clear" OK "$(a $T 'hist:keys=common_pid:clear')"
expect_eq "cleared" "    Hits: 0" "$(grep Hits: $H)"
expect_eq "remove" OK "$(a $T '!hist:keys=common_pid')"
expect_eq "gone" "" "$(cat $H)"

# hist keyed on the text (buf, a string: its text is the key, kept in the
# mount's table; as the kernel's, the newline written is part of it)
expect_eq "hist on buf" OK "$(w $T 'hist:keys=buf:sort=buf')"
for m in beta alpha beta; do echo "$m" >trace_marker; done
printf 'gamma' >trace_marker
awk '/^\{/ { on = 1 } on { print } /hitcount/ { on = 0 }' $H | sed -e 's/  *}/ }/' >"$TOP/hb.txt"
expect "one entry per text, sorted by it" "$TOP/hb.txt" <<'EOF2'
{ buf: alpha
 } hitcount:          1
{ buf: beta
 } hitcount:          2
{ buf: gamma } hitcount:          1
EOF2
expect_eq "remove" OK "$(a $T '!hist:keys=buf:sort=buf')"
# a filter on the text
expect_eq "traceoff if buf" OK "$(w $T 'traceoff if buf == "stop"')"
echo go >trace_marker
expect_eq "another text: on" 1 "$(cat tracing_on)"
printf 'stop' >trace_marker
expect_eq "its text: off" 0 "$(cat tracing_on)"
echo 1 >tracing_on
expect_eq "remove" OK "$(a $T '!traceoff if buf == "stop"')"

# traceoff with a count and a filter on the writer
expect_eq "traceoff other pid" OK "$(w $T 'traceoff:1 if common_pid == 1')"
echo one >trace_marker
expect_eq "not this writer: on" 1 "$(cat tracing_on)"
expect_eq "remove" OK "$(a $T '!traceoff')"
expect_eq "traceoff:1" OK "$(w $T "traceoff:1 if common_pid == $$")"
expect_eq "read" "traceoff:count=1 if common_pid == $$" "$(cat $T)"
echo two >trace_marker
expect_eq "off" 0 "$(cat tracing_on)"
expect_eq "the marker that fired it is recorded" 1 "$(grep -c 'tracing_mark_write: two' trace)"
expect_eq "count used up" "traceoff:count=0 if common_pid == $$" "$(cat $T)"
echo 1 >tracing_on
echo three >trace_marker
expect_eq "count 0: stays on" 1 "$(cat tracing_on)"
expect_eq "remove" OK "$(a $T '!traceoff')"

# under processes/PID/: the process's own triggers and table
expect_eq "process hist" OK "$(w processes/$P/$T 'hist:keys=common_pid:vals=hitcount')"
echo a >processes/$P/trace_marker
echo b >processes/$P/trace_marker
expect_eq "process table" "{ common_pid: SHELL } hitcount:          2" \
	"$(grep '^{' processes/$P/$H | sed "s/common_pid: *$$ /common_pid: SHELL /")"
expect_eq "the top level has no such trigger" "" "$(cat $H)"
expect_eq "process traceoff" OK "$(w processes/$P/$T traceoff)"
echo c >processes/$P/trace_marker
expect_eq "the process is off" 0 "$(cat processes/$P/tracing_on)"
echo 1 >processes/$P/tracing_on
expect_eq "remove" OK "$(a processes/$P/$T '!traceoff')"

# snapshot: the marker that fired it is in the snapshot
echo >trace
expect_eq "snapshot" OK "$(w $T 'snapshot:1')"
echo "snap me" >trace_marker
expect_eq "in the snapshot" 1 "$(grep -c 'tracing_mark_write: snap me' snapshot)"
expect_eq "taken out of trace" 0 "$(grep -c 'tracing_mark_write: snap me' trace)"
expect_eq "remove" OK "$(a $T '!snapshot')"
echo 0 >snapshot

# enable_event: the marker turns an event on
expect_eq "enable_event" OK "$(w $T 'enable_event:sched:sched_process_fork:1')"
expect_eq "the target waits (soft mode)" "0*" "$(cat events/sched/sched_process_fork/enable)"
echo go >trace_marker
expect_eq "enabled by the marker" "sched:sched_process_fork" "$(cat set_event)"
expect_eq "the target is on" "1*" "$(cat events/sched/sched_process_fork/enable)"
expect_eq "its count" "enable_event:sched:sched_process_fork:count=0" "$(cat $T)"
expect_eq "remove" OK "$(a $T '!enable_event:sched:sched_process_fork')"
expect_eq "disable_event" OK "$(w $T 'disable_event:sched:sched_process_fork')"
echo stop >trace_marker
expect_eq "disabled by the marker" "" "$(cat set_event)"
expect_eq "remove" OK "$(a $T '!disable_event:sched:sched_process_fork')"

# a program's own markers (utrace_marker()) fire the triggers in the
# program: ip is the code that wrote it; its table merges into the hist
expect_eq "hist on ip.sym" OK "$(w $T 'hist:keys=ip.sym')"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog marker gcc-pfe)" >"$TOP/marker.out" 2>&1
grep '^{' $H | sed -E 's/\[[0-9a-f]+\]/[ADDR]/; s/ +\}/ }/' >"$TOP/ip.txt"
expect "the program's marker, by the function that wrote it" "$TOP/ip.txt" <<'EOF2'
{ ip: [ADDR] m_work } hitcount:          1
EOF2
echo "from the shell" >trace_marker
expect_eq "the mount's (ip 0) beside it" 2 "$(grep -c '^{' $H)"
expect_eq "remove" OK "$(a $T '!hist:keys=ip.sym')"

# bad input as for any event
expect_eq "unknown field" EINVAL "$(w $T 'hist:keys=nofield')"
expect_eq "hist on the kernel's field ip" OK "$(w $T 'hist:keys=ip')"
expect_eq "remove" OK "$(a $T '!hist:keys=ip')"
expect_eq "filter file" OK "$(w events/ftrace/print/filter 'common_pid > 0')"
expect_eq "filter read" "common_pid > 0" "$(cat events/ftrace/print/filter)"
expect_eq "still no enable" ENOENT "$(werr cat events/ftrace/print/enable)"
alive
finish
