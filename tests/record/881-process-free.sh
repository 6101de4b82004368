#!/bin/bash
# sched:sched_process_free (issue 13): recorded in the parent when it reaps
# a child, with the kernel's fields (comm, pid, prio) as the child's zombie
# showed them: tests/progs/reap reaps children named kid-N with wait,
# waitpid, wait3, wait4 (a child at nice 5 killed by SIGTERM: prio 125),
# waitid, then finds a running child with WNOHANG and an exited one with
# waitid(WNOWAIT) (neither reaps: no event) before it reaps it.  report
# and trace-cmd print the same; the format is the kernel's.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/reap.sh"

reap_record 'sched:sched_process_free' '[0-9]+'
expect "report: one event per reaped child, in the parent" rep.txt <<'EOF2'
reap.gcc-pfe sched_process_free: comm=kid-1 pid=C prio=120
reap.gcc-pfe sched_process_free: comm=kid-2 pid=C prio=120
reap.gcc-pfe sched_process_free: comm=kid-3 pid=C prio=120
reap.gcc-pfe sched_process_free: comm=kid-4 pid=C prio=125
reap.gcc-pfe sched_process_free: comm=kid-5 pid=C prio=120
reap.gcc-pfe sched_process_free: comm=kid-6 pid=C prio=120
EOF2
if command -v trace-cmd >/dev/null; then
	reap_tracecmd '[0-9]+'
	expect "trace-cmd report" tc.txt <rep.txt
	sed -n '/^name: sched_process_free$/,/^print fmt/p' <(trace-cmd dump --events t.dat 2>/dev/null) >fmt.txt
	expect "the format trace.dat carries" fmt.txt <<'EOF2'
name: sched_process_free
ID: 1019
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:__data_loc char[] comm;	offset:8;	size:4;	signed:0;
	field:pid_t pid;	offset:12;	size:4;	signed:1;
	field:int prio;	offset:16;	size:4;	signed:1;

print fmt: "comm=%s pid=%d prio=%d", __get_str(comm), REC->pid, REC->prio
EOF2
fi
finish
