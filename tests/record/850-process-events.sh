#!/bin/bash
# Process events (issue 13): a program that dlopens, starts a thread,
# raises a handled signal, forks a child that exits and one that execs,
# dlcloses and exits (each exit() sends its parent a SIGCHLD: signal_generate
# in the exiting process, res=1 for a parent whose SIGCHLD action is the
# default, R the recorder), recorded with -e 'sched:*' -e 'signal:*' -e
# 'utrace:*': the kernel's sched_process_fork/exec/exit, signal_generate
# and signal_deliver with the kernel's fields, utrace's thread_start,
# thread_exit, dlopen and dlclose, printed by report as the kernel prints
# them and read by trace-cmd with the formats written into trace.dat.
# Pids are named by role (P the program, T its thread, C1 and C2 its
# children), each task's events in its order.
. "$(dirname "$0")/../lib/common.sh"

PROG=$(prog procev gcc-pfe)
record t.dat -e 'sched:*' -e 'signal:*' -e 'utrace:*' -- "$PROG" || fail "record exited $?: $(cat t.dat.err)"
expect "the program ran" t.dat.out <<'EOF2'
execd
procev done 1
EOF2
[ -s t.dat.err ] && fail "record printed on stderr: $(cat t.dat.err)"
report t.dat >rep.txt || fail "report exited $?: $(cat t.dat.rerr)"

# The roles' pids, from the program's own events (P: the one that dlopens).
P=$(sed -nE 's/^ *[^ ]+-([0-9]+) .* dlopen: .*/\1/p' rep.txt)
T=$(sed -nE 's/.* thread_start: tid=([0-9]+) .*/\1/p' rep.txt)
C1=$(sed -nE 's/.* sched_process_fork: .* child_pid=([0-9]+)$/\1/p' rep.txt | sed -n 1p)
C2=$(sed -nE 's/.* sched_process_fork: .* child_pid=([0-9]+)$/\1/p' rep.txt | sed -n 2p)
[ -n "$P" ] && [ -n "$T" ] && [ -n "$C1" ] && [ -n "$C2" ] || fail "roles not found: P=$P T=$T C1=$C1 C2=$C2"

# pid numbers named by role, addresses masked, then each task's events in order
roles() {
	sed -E -e "s/\\b$P\\b/P/g" -e "s/\\b$T\\b/T/g" -e "s/\\b$C1\\b/C1/g" -e "s/\\b$C2\\b/C2/g" \
		-e 's/(base|func|sa_handler)=[0-9a-f]+/\1=<ADDR>/' -e "s|$UT_PROGS/||g" \
		-e 's/comm=utrace pid=[0-9]+/comm=utrace pid=R/'
}
events <rep.txt | sed -E 's/^ *([^ ]+) +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]{6}: /\1 /' | roles |
	sort -s -k1,1 >ev.txt
expect "report: the events of each task" ev.txt <<'EOF2'
procev.gcc-pfe-C1 sched_process_exit: comm=procev.gcc-pfe pid=C1 prio=120 group_dead=true
procev.gcc-pfe-C1 signal_generate: sig=17 errno=0 code=1 comm=procev.gcc-pfe pid=P grp=1 res=1
procev.gcc-pfe-C2 sched_process_exec: filename=procev.gcc-pfe pid=C2 old_pid=C2
procev.gcc-pfe-C2 sched_process_exit: comm=procev.gcc-pfe pid=C2 prio=120 group_dead=true
procev.gcc-pfe-C2 signal_generate: sig=17 errno=0 code=1 comm=procev.gcc-pfe pid=P grp=1 res=1
procev.gcc-pfe-P sched_process_exec: filename=procev.gcc-pfe pid=P old_pid=P
procev.gcc-pfe-P dlopen: filename=libtplug.gcc-pfe.so base=<ADDR> mode=0x2
procev.gcc-pfe-P signal_generate: sig=10 errno=0 code=-6 comm=procev.gcc-pfe pid=P grp=0 res=0
procev.gcc-pfe-P signal_deliver: sig=10 errno=0 code=-6 sa_handler=<ADDR> sa_flags=4000000
procev.gcc-pfe-P sched_process_fork: comm=procev.gcc-pfe pid=P child_comm=procev.gcc-pfe child_pid=C1
procev.gcc-pfe-P sched_process_wait: comm=procev.gcc-pfe pid=C1 prio=120
procev.gcc-pfe-P sched_process_free: comm=procev.gcc-pfe pid=C1 prio=120
procev.gcc-pfe-P sched_process_fork: comm=procev.gcc-pfe pid=P child_comm=procev.gcc-pfe child_pid=C2
procev.gcc-pfe-P sched_process_wait: comm=procev.gcc-pfe pid=C2 prio=120
procev.gcc-pfe-P sched_process_free: comm=procev.gcc-pfe pid=C2 prio=120
procev.gcc-pfe-P dlclose: filename=libtplug.gcc-pfe.so base=<ADDR>
procev.gcc-pfe-P sched_process_exit: comm=procev.gcc-pfe pid=P prio=120 group_dead=true
procev.gcc-pfe-P signal_generate: sig=17 errno=0 code=1 comm=utrace pid=R grp=1 res=1
procev.gcc-pfe-T thread_start: tid=T parent_tid=P func=<ADDR>
procev.gcc-pfe-T thread_exit: tid=T
procev.gcc-pfe-T sched_process_exit: comm=procev.gcc-pfe pid=T prio=120 group_dead=false
EOF2

# Only what was enabled: sched_process_fork alone.
record f.dat -e sched:sched_process_fork -- "$PROG" || fail "record -e sched:sched_process_fork exited $?"
report f.dat | events | sed -E 's/^.*: ([a-z_]+): .*/\1/' | sort | uniq -c | awk '{print $2, $1}' >f.txt
expect "one event enabled" f.txt <<'EOF2'
sched_process_fork 2
EOF2

# trace-cmd reads them with the formats the file carries, as report prints them.
if command -v trace-cmd >/dev/null; then
	trace-cmd report -i t.dat 2>tc.err | grep -v '^cpus=' |
		sed -E 's/^ *([^ ]+) +\[[0-9]+\] +[0-9]+\.[0-9]{6}: ([a-z_]+): +/\1 \2: /' | roles |
		sort -s -k1,1 >tc.txt
	expect "trace-cmd report" tc.txt <ev.txt
	sed -n '/^name: sched_process_exit$/,/^print fmt/p' <(trace-cmd dump --events t.dat 2>/dev/null) >fmt.txt
	expect "the format trace.dat carries" fmt.txt <<'EOF2'
name: sched_process_exit
ID: 1012
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:char comm[16];	offset:8;	size:16;	signed:0;
	field:pid_t pid;	offset:24;	size:4;	signed:1;
	field:int prio;	offset:28;	size:4;	signed:1;
	field:bool group_dead;	offset:32;	size:1;	signed:0;

print fmt: "comm=%s pid=%d prio=%d group_dead=%s", REC->comm, REC->pid, REC->prio, REC->group_dead ? "true" : "false"
EOF2
fi
finish
