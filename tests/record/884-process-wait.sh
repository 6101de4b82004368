#!/bin/bash
# sched:sched_process_wait: every wait call of a traced process, in the
# waiting thread, at the start of the call as the kernel's do_wait(): its
# comm and prio, and the pid waited for: 0 for any child (wait, wait3),
# the pid for waitpid/wait4/waitid(P_PID), and also for the calls that reap
# nothing (WNOHANG finding a running child, WNOWAIT).  tests/progs/reap
# makes each of those calls once (tests/record/881 has its reaps).  With
# the pid masked as the role it names: C a child, 0 any.  A shell's
# `cmd; wait` gives the same as the kernel's trace of bash: pid=0.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/reap.sh"

reap_record 'sched:sched_process_wait' '[1-9][0-9]*'
expect "report: one event per wait call, in the parent" rep.txt <<'EOF2'
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=0 prio=120
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=C prio=120
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=0 prio=120
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=C prio=120
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=C prio=120
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=C prio=120
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=C prio=120
reap.gcc-pfe sched_process_wait: comm=reap.gcc-pfe pid=C prio=120
EOF2
if command -v trace-cmd >/dev/null; then
	reap_tracecmd '[1-9][0-9]*'
	expect "trace-cmd report" tc.txt <rep.txt
fi

# a shell waits for any child
record s.dat -e 'sched:sched_process_wait' -- /bin/bash -c '/bin/true; exit 3'
report s.dat | events | report_fields | sort -u >sh.txt
expect "bash: waits for any child" sh.txt <<'EOF2'
bash sched_process_wait: comm=bash pid=0 prio=120
EOF2
finish
