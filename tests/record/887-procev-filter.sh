#!/bin/bash
# Event filters on process events (issue 13): `-e EVENT -f FILTER` compiles
# the filter against the process event's format (the kernel's fields:
# child_pid, child_comm, sig, result, comm...), and each process judges its
# events with it before writing them, as the kernel's events/.../filter:
# numbers, strings (== and ~ on a __data_loc or char[16] field), && and ||.
# A filter naming no field of the event is refused with the kernel's report.
. "$(dirname "$0")/../lib/common.sh"

SH='/bin/true; /bin/true; (exit 0); /bin/true'
ev() { report "$1" | events | sed -E 's/^ *([^ ]+)-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]{6}: /\1 /;
	s/pid=[0-9]+/pid=N/g'; }

record all.dat -e sched:sched_process_fork -- /bin/bash -c "$SH" || fail "record exited $?"
ev all.dat >all.txt
expect "unfiltered: three forks" all.txt <<'EOF2'
bash sched_process_fork: comm=bash pid=N child_comm=bash child_pid=N
bash sched_process_fork: comm=bash pid=N child_comm=bash child_pid=N
bash sched_process_fork: comm=bash pid=N child_comm=bash child_pid=N
EOF2
C1=$(report all.dat | events | sed -nE 's/.* child_pid=([0-9]+)$/\1/p' | sed -n 1p)

record none.dat -e sched:sched_process_fork -f 'child_comm == "true" || child_pid < 0' -- /bin/bash -c "$SH" ||
	fail "record -f exited $?"
expect_eq "a filter no fork passes: none written" 0 "$(ev none.dat | wc -l)"

record sig.dat -e signal:signal_generate -f 'sig == 17 && result == 0 && comm ~ "ba*"' -- /bin/bash -c "$SH" ||
	fail "record -f exited $?"
ev sig.dat >sig.txt
expect "the SIGCHLDs to bash (two trues, a subshell), not the last true's to the recorder (res=1)" sig.txt <<'EOF2'
true signal_generate: sig=17 errno=0 code=1 comm=bash pid=N grp=1 res=0
true signal_generate: sig=17 errno=0 code=1 comm=bash pid=N grp=1 res=0
bash signal_generate: sig=17 errno=0 code=1 comm=bash pid=N grp=1 res=0
EOF2

"$UTRACE" record -o bad.dat -e sched:sched_process_fork -f 'sig == 17' -- /bin/true >/dev/null 2>bad.err
expect_eq "a field the event lacks: exit 2" 2 "$?"
expect "the kernel's report" bad.err <<'EOF2'
utrace: -f: the filter of sched:sched_process_fork does not parse (Invalid argument):
sig == 17
    ^
parse_error: Field not found
EOF2
[ -n "$C1" ] || fail "no fork in the unfiltered run"
finish
