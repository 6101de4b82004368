#!/bin/bash
# record --event-pid (set_event_pid, issue 13): events only from the pids
# listed.  A pid the program never has (1) leaves the file without events,
# while the same run without the option has them; bad pids are refused
# with one line; -O event-fork is taken.
. "$(dirname "$0")/../lib/common.sh"

PROG=$(prog procev gcc-pfe)
record all.dat -e 'sched:*' -- "$PROG" || fail "record exited $?: $(cat all.dat.err)"
record none.dat -e 'sched:*' --event-pid 1 -O event-fork -- "$PROG" ||
	fail "record --event-pid exited $?: $(cat none.dat.err)"
expect_eq "without: the events" 11 "$(report all.dat | events | grep -c 'sched_process_')"
expect_eq "--event-pid 1: none" 0 "$(report none.dat | events | grep -c 'sched_process_')"
"$UTRACE" record -o bad.dat -e 'sched:*' --event-pid 12x -- "$PROG" >/dev/null 2>bad.err
expect_eq "a bad pid: exit 2" 2 "$?"
expect "its message" bad.err <<'EOF2'
utrace: invalid --event-pid '12x' (a pid or tid)
EOF2
finish
