#!/bin/bash
# signal:signal_generate of the SIGCHLD a process's exit() sends its parent,
# recorded in the exiting process after its sched_process_exit, as the
# kernel's exit_notify() does: code 1 (CLD_EXITED), the parent's comm and
# pid, grp 1; res 0 to a parent that catches SIGCHLD (bash), 1 to one whose
# action is the default (utrace record, the program's parent), and no event
# at all to a parent that ignores it (SIG_IGN: the kernel sends nothing).
. "$(dirname "$0")/../lib/common.sh"

# tasks named by role: S the shell, R the recorder
one() {
	local f=$1
	report "$f" | events | sed -E -e 's/^ *([^ ]+)-([0-9]+) +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]{6}: /\1 /' \
		-e 's/pid=[0-9]+/pid=N/g'
}
record b.dat -e 'signal:signal_generate' -e 'sched:sched_process_exit' -- \
	/bin/bash -c '/bin/true; /bin/true; exit 0' || fail "record bash exited $?"
one b.dat >b.txt
expect "bash's children, then bash" b.txt <<'EOF2'
true sched_process_exit: comm=true pid=N prio=120 group_dead=true
true signal_generate: sig=17 errno=0 code=1 comm=bash pid=N grp=1 res=0
true sched_process_exit: comm=true pid=N prio=120 group_dead=true
true signal_generate: sig=17 errno=0 code=1 comm=bash pid=N grp=1 res=0
bash sched_process_exit: comm=bash pid=N prio=120 group_dead=true
bash signal_generate: sig=17 errno=0 code=1 comm=utrace pid=N grp=1 res=1
EOF2
# the shell's pid in its children's events, the recorder's in the shell's
S=$(report b.dat | events | sed -nE 's/^ *bash-([0-9]+) .*/\1/p' | sed -n 1p)
expect_eq "the children's parent is the shell" 2 \
	"$(report b.dat | events | grep -c "true-.* signal_generate: .* comm=bash pid=$S ")"

if [ -x /usr/bin/python3 ]; then
	record p.dat -e 'signal:signal_generate' -e 'sched:sched_process_exit' -- /usr/bin/python3 -c '
import signal, subprocess
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
subprocess.run(["/bin/true"])' || fail "record python3 exited $?"
	one p.dat >p.txt
	expect "a parent that ignores SIGCHLD: no signal from its child" p.txt <<'EOF2'
true sched_process_exit: comm=true pid=N prio=120 group_dead=true
python3 sched_process_exit: comm=python3 pid=N prio=120 group_dead=true
python3 signal_generate: sig=17 errno=0 code=1 comm=utrace pid=N grp=1 res=1
EOF2
fi
finish
