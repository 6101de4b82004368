#!/bin/bash
# `start --trigger 'ftrace:print TRIGGER'` (issue 13): a trigger on
# trace_marker's event goes into the process's configuration like any
# event's; the mount runs it when that process's trace_marker
# (processes/PID/trace_marker) is written.  The option checks it on the
# kernel's fields (ip, buf, common_pid) instead of warning that no probe
# has that name; hist variables are refused there, as the mount refuses
# them.  record takes it the same way.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s
S=$(pid_of s)
"$UTRACE" start -P "$S" --trigger 'ftrace:print hist:keys=common_pid' \
	--trigger "ftrace:print traceoff:1 if common_pid == $$" >"$TOP/start.out" 2>&1
expect_eq "start took them, silently" "0 " "$? $(cat "$TOP/start.out")"
cd "$MNT" || exit 1
T=processes/$S/events/ftrace/print/trigger
cat $T >"$TOP/t.txt"
expect "the process's triggers" "$TOP/t.txt" <<EOF2
traceoff:count=1 if common_pid == $$
hist:keys=common_pid:vals=hitcount:sort=hitcount:size=2048 [active]
EOF2
echo one >processes/$S/trace_marker
expect_eq "traceoff fired" 0 "$(cat processes/$S/tracing_on)"
expect_eq "hist counted" "{ common_pid: SHELL } hitcount:          1" \
	"$(grep '^{' processes/$S/events/ftrace/print/hist | sed "s/common_pid: *$$ /common_pid: SHELL /")"
cd "$TOP" || exit 1

"$UTRACE" start -P "$S" --trigger 'ftrace:print hist:keys=nofield' >"$TOP/e1.txt" 2>&1
expect_eq "an unknown field" "2 utrace: --trigger 'ftrace:print hist:keys=nofield': Couldn't find field" \
	"$? $(cat "$TOP/e1.txt")"
"$UTRACE" start -P "$S" --trigger 'ftrace:print hist:keys=common_pid:t=common_timestamp' >"$TOP/e2.txt" 2>&1
expect_eq "no variables" "2 utrace: --trigger 'ftrace:print hist:keys=common_pid:t=common_timestamp': ftrace:print's hist triggers take no variables or actions" \
	"$? $(cat "$TOP/e2.txt")"
"$UTRACE" record -o "$TOP/r.dat" --trigger 'ftrace:print traceoff if buf == "stop"' -- "$(prog usdt gcc-pfe)" \
	>/dev/null 2>"$TOP/r.err"
expect_eq "record takes it, no warning" "0 " "$? $(cat "$TOP/r.err")"
alive
finish
