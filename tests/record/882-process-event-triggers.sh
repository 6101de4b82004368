#!/bin/bash
# record --trigger on a process event (issue 13), with a filter on the
# kernel's field names: 'sched:sched_process_fork traceoff if child_pid > 0'
# stops the parent's recording at its first fork (the fork itself is still
# recorded, as the kernel's traceoff), while its children, each with its
# own session, record their own events.  A field the event lacks is refused
# before the program runs.
. "$(dirname "$0")/../lib/common.sh"

PROG=$(prog procev gcc-pfe)
record t.dat -e 'sched:*' --trigger 'sched:sched_process_fork traceoff if child_pid > 0' -- "$PROG" ||
	fail "record exited $?: $(cat t.dat.err)"
P=$(report t.dat | events | sed -nE 's/.* sched_process_fork: comm=[^ ]+ pid=([0-9]+) .*/\1/p' | head -n 1)
report t.dat | events | grep -E -- "-$P +\[" | sed -E 's/^.*[0-9]{6}: ([a-z_]+):.*/\1/' >parent.txt
expect "the parent's events: up to its first fork" parent.txt <<'EOF2'
sched_process_exec
sched_process_fork
EOF2
expect_eq "the children's own" 3 "$(report t.dat | events | grep -v -E -- "-$P +\[" | grep -c 'sched_process_')"
"$UTRACE" record -o bad.dat -e 'sched:*' --trigger 'sched:sched_process_fork traceoff if nosuch > 0' -- "$PROG" >/dev/null 2>bad.err
expect_eq "a field fork lacks: exit 2" 2 "$?"
expect "its message" bad.err <<'EOF2'
utrace: --trigger 'sched:sched_process_fork traceoff if nosuch > 0': Field not found
EOF2
finish
