#!/bin/bash
# Named hist triggers (histogram.rst, the kernel's trigger-multihist.tc):
# `hist:name=NAME:...` on two events is one table, counted by both (a
# traced server's forks and its children's exits), so both events' hist
# files read the same, the trigger listed as the kernel lists it
# (hist:name=NAME:keys=..); a trigger of that name with another definition
# is refused with the kernel's message.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s
cd "$MNT" || exit 1
FT=events/sched/sched_process_fork/trigger
ET=events/sched/sched_process_exit/trigger
forks() { send s "forks $1 0"; wait_for s "^forked $1 "; }

expect_eq "named, on fork" OK "$(w $FT 'hist:name=both:keys=common_pid.execname')"
expect_eq "the same name on exit" OK "$(w $ET 'hist:name=both:keys=common_pid.execname')"
expect_eq "listed with its name" \
	"hist:name=both:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=2048 [active]" "$(cat $FT)"
forks 3
expect_eq "one table: both files the same" "" \
	"$(diff events/sched/sched_process_fork/hist events/sched/sched_process_exit/hist)"
# the forks in the server (one pid, 3 hits), the exits in its 3 children: 6 hits, one table
grep -E '^\{|Hits' events/sched/sched_process_fork/hist | sed -E 's/\[ *[0-9]+\]/[PID]/' | sort >"$TOP/n.txt"
printf '%s\n' "    Hits: 6" \
	"{ common_pid: server.gcc-pfe  [PID] } hitcount:          3" \
	"{ common_pid: server.gcc-pfe  [PID] } hitcount:          1" \
	"{ common_pid: server.gcc-pfe  [PID] } hitcount:          1" \
	"{ common_pid: server.gcc-pfe  [PID] } hitcount:          1" | sort >"$TOP/n.exp"
expect "the server's forks and its children's exits" "$TOP/n.txt" <"$TOP/n.exp"
echo >error_log
expect_eq "the name with another definition" EINVAL "$(a $ET 'hist:name=both:keys=pid')"
sed -E 's/^\[ *[0-9]+\.[0-9]{6}\]/[TS]/' error_log >"$TOP/err.txt"
expect "error_log" "$TOP/err.txt" <<'EOF2'
[TS] hist:sched:sched_process_exit: error: Named hist trigger doesn't match existing named trigger (includes variables)
  Command: hist:name=both:keys=pid
                ^
EOF2
expect_eq "removed from one event" OK "$(a $FT '!hist:name=both:keys=common_pid.execname')"
expect_eq "the other keeps the table" 1 "$(grep -c 'Hits: 6' events/sched/sched_process_exit/hist)"
alive
finish
