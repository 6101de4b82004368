#!/bin/bash
# events/SYS/EVT/trigger (issue 13, item 5): the kernel's event triggers on
# USDT events, run in the traced process when the probe hits (SPEC §9.4):
# traceoff/traceon with counts (tracing stops after N hits: the events in
# trace show where), stacktrace, enable_event/disable_event on another
# event (soft enabled: recorded only after the trigger fired), read back as
# the kernel prints them, newest first, with the counts left; `!trigger`
# removes; duplicates are EEXIST, bad input EINVAL with nothing changed;
# an event's enable shows the kernel's soft mode (0*, 1*).
. "$(dirname "$0")/mount.lib"

do_mount
mkfifo "$TOP/u.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog usdt gcc-pfe)" -i <"$TOP/u.in" >"$TOP/u.out" 2>"$TOP/u.err" &
P=$!
_server_pids+=("$P")
exec {_fd_u}>"$TOP/u.in"
send u ping
wait_for u '^pong$'
cd "$MNT" || exit 1
T=events/utest/pair/trigger

# the events of trace without their timestamps and tasks
events() { grep -v '^#' trace | sed -E 's/^.*[0-9]\.[0-9]{6}: //'; }

expect "no trigger: the list of the available ones" $T <<'EOF2'
# Available triggers:
# traceon traceoff snapshot stacktrace enable_event disable_event hist
EOF2

# traceoff:2 -- pair hits twice a round; the second hit turns tracing off
expect_eq "set_event" OK "$(w set_event 'utest:pair utest:konst')"
expect_eq "traceoff:2" OK "$(w $T traceoff:2)"
expect_eq "read back" "traceoff:count=2" "$(cat $T)"
echo >trace
run_req u 2
events >"$TOP/t1.txt"
expect "traceoff fires on the first pair; that event is still recorded" "$TOP/t1.txt" <<'EOF2'
pair: arg1=0 arg2=0
EOF2
expect_eq "tracing_on went off" 0 "$(cat tracing_on)"
expect_eq "the count went down once" "traceoff:count=1" "$(cat $T)"
echo 1 >tracing_on
run_req u 1
expect_eq "again: off after the next pair" "traceoff:count=0" "$(cat $T)"
expect_eq "off" 0 "$(cat tracing_on)"
echo 1 >tracing_on
echo >trace
run_req u 1
events >"$TOP/t2.txt"
expect "count 0: traceoff does nothing more" "$TOP/t2.txt" <<'EOF2'
pair: arg1=3 arg2=-3000
konst: arg1=42
EOF2
expect_eq "a second traceoff" EEXIST "$(a $T traceoff)"
expect_eq "remove it (the count may be left out)" OK "$(a $T '!traceoff')"
expect_eq "gone" "# Available triggers:" "$(head -n 1 $T)"

# traceon: the event that fires it is not recorded (tracing was off)
echo 0 >tracing_on
expect_eq "traceon on konst" OK "$(a events/utest/konst/trigger traceon)"
expect_eq "unlimited" "traceon:unlimited" "$(cat events/utest/konst/trigger)"
echo >trace
run_req u 2
events >"$TOP/t3.txt"
expect "konst turned tracing on: the next round is recorded, not konst itself" "$TOP/t3.txt" <<'EOF2'
pair: arg1=5 arg2=-5000
konst: arg1=42
EOF2
expect_eq "on" 1 "$(cat tracing_on)"
expect_eq "remove traceon" OK "$(a events/utest/konst/trigger '!traceon')"

# stacktrace:1 on pair: one <stack trace> after the first pair only
expect_eq "stacktrace:1" OK "$(a $T stacktrace:1)"
echo >trace
run_req u 2
expect_eq "one stack" 1 "$(grep -c '<stack trace>' trace)"
expect_eq "after the first pair" "<stack trace>" "$(events | sed -n 2p | sed 's/^.*: //')"
expect_eq "count left" "stacktrace:count=0" "$(cat $T)"

# enable_event: konst, not enabled, is recorded from the third pair on
expect_eq "set_event pair only" OK "$(w set_event utest:pair)"
expect_eq "enable_event with a count" OK "$(a $T 'enable_event:utest:konst:1')"
expect "two triggers, newest first" $T <<'EOF2'
enable_event:utest:konst:count=1
stacktrace:count=0
EOF2
expect_eq "disable_event" OK "$(a events/utest/memory/trigger 'disable_event:utest:konst')"
echo >trace
run_req u 2
events | grep -v '=>' | grep -v 'stack trace' >"$TOP/t4.txt"
expect "konst recorded after pair enabled it, until memory disabled it" "$TOP/t4.txt" <<'EOF2'
pair: arg1=8 arg2=-8000
konst: arg1=42
pair: arg1=9 arg2=-9000
EOF2
expect_eq "enable_event's count" "enable_event:utest:konst:count=0" "$(head -n 1 $T)"
expect_eq "disable_event unlimited" "disable_event:utest:konst:unlimited" \
	"$(cat events/utest/memory/trigger)"
expect_eq "remove enable_event (target named)" OK "$(a $T '!enable_event:utest:konst')"
expect_eq "remove stacktrace with a count" OK "$(a $T '!stacktrace:1')"
expect_eq "none left" "# Available triggers:" "$(head -n 1 $T)"
expect_eq "remove disable_event" OK "$(a events/utest/memory/trigger '!disable_event:utest:konst')"

# enable reads the kernel's soft mode: 0* / 1* while triggers are on an event or target it
expect_eq "pair: enabled, no trigger" 1 "$(cat events/utest/pair/enable)"
expect_eq "enable_event, unlimited" OK "$(a $T 'enable_event:utest:konst')"
expect_eq "pair: enabled, with a trigger" "1*" "$(cat events/utest/pair/enable)"
expect_eq "konst: a target not fired yet" "0*" "$(cat events/utest/konst/enable)"
run_req u 1
expect_eq "konst: the trigger enabled it" "1*" "$(cat events/utest/konst/enable)"
expect_eq "remove" OK "$(a $T '!enable_event:utest:konst')"
expect_eq "konst: no soft mode left" 0 "$(cat events/utest/konst/enable)"
expect_eq "pair: none either" 1 "$(cat events/utest/pair/enable)"

# processes/PID/: one process's own triggers (the top level shows the template's)
PT=processes/$P/events/utest/konst/trigger
expect_eq "a trigger of the process alone" OK "$(a $PT stacktrace:3)"
expect_eq "read back there" "stacktrace:count=3" "$(cat $PT)"
expect_eq "not in the template" "# Available triggers:" "$(head -n 1 events/utest/konst/trigger)"
expect_eq "konst is armed for it" "0*" "$(cat processes/$P/events/utest/konst/enable)"
expect_eq "removed there" OK "$(a $PT '!stacktrace')"

# bad input: EINVAL, nothing changed, nothing logged (as the kernel)
echo >error_log
expect_eq "unknown trigger" EINVAL "$(a $T bogus)"
expect_eq "bad count" EINVAL "$(a $T traceoff:abc)"
expect_eq "no such target" EINVAL "$(a $T enable_event:nosuch:event)"
expect_eq "empty write" EINVAL "$(a $T '')"
expect_eq "snapshot: a bad count" EINVAL "$(a $T snapshot:x)"
expect_eq "still none" "# Available triggers:" "$(head -n 1 $T)"
expect_eq "error_log stays empty" "" "$(cat error_log)"

# a filter naming no field: EINVAL, the kernel's report in error_log
expect_eq "traceoff if ..." EINVAL "$(a $T 'traceoff:2 if arg9 > 1')"
sed -E 's/^\[ *[0-9]+\.[0-9]{6}\]/[TS]/' error_log >"$TOP/errlog.txt"
expect "error_log: the caret under the filter" "$TOP/errlog.txt" <<'EOF2'
[TS] event filter parse error: error: Field not found
  Command: traceoff:2 if arg9 > 1
                              ^
EOF2
expect_eq "nothing set" "# Available triggers:" "$(head -n 1 $T)"
# a good one is taken and read back with it
expect_eq "traceoff if arg1 > 1" OK "$(a $T 'traceoff:2 if arg1 > 1')"
expect_eq "read back" "traceoff:count=2 if arg1 > 1" "$(head -n 1 $T)"
alive
finish
