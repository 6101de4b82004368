#!/bin/bash
# events/sched/.../filter and events/signal/.../filter (issue 13): the
# process events take the kernel's event filters, compiled against their
# formats; the process judges each event before it writes it.  A bad one is
# EINVAL with the kernel's report in the file and in error_log, the caret
# where the kernel puts it (the kselftest tracing-error-log's own case).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s
S=$(pid_of s)
cd "$MNT" || exit 1
F=processes/$S/events/sched/sched_process_fork/filter

expect_eq "enable" OK "$(w processes/$S/set_event sched:sched_process_fork)"
expect_eq "a filter no fork passes" OK "$(w $F 'child_comm == "nosuch" && child_pid > 0')"
expect_eq "it reads back" 'child_comm == "nosuch" && child_pid > 0' "$(cat $F)"
send s "forks 2 0"
wait_for s '^forked 2 '
expect_eq "none written" 0 "$(grep -c sched_process_fork processes/$S/trace)"
expect_eq "one the forks pass" OK "$(w $F 'child_pid > 0 && parent_comm ~ "serv*"')"
send s "forks 3 0"
wait_for s '^forked 3 '
expect_eq "all three written" 3 "$(grep -c sched_process_fork processes/$S/trace)"
expect_eq "cleared" OK "$(w $F 0)"
expect_eq "none again" none "$(cat $F)"

echo >error_log
expect_eq "a bad filter" EINVAL \
	"$(w events/signal/signal_generate/filter '((sig >= 10 && sig < 15) || dsig == 17) && comm != bash')"
sed -E 's/^\[ *[0-9]+\.[0-9]+\]/[<TS>]/' error_log >"$TOP/elog.txt"
expect "error_log" "$TOP/elog.txt" <<'EOF2'
[<TS>] event filter parse error: error: Field not found
  Command: ((sig >= 10 && sig < 15) || dsig == 17) && comm != bash
                                            ^
EOF2
expect "the filter file's report" events/signal/signal_generate/filter <<'EOF2'
((sig >= 10 && sig < 15) || dsig == 17) && comm != bash
                                 ^
parse_error: Field not found

EOF2
finish
