#!/bin/bash
# Process events in the mount (issue 13): sched, signal and utrace events
# in available_events and events/ with the kernel's formats; ftrace/print
# (trace_marker) with its format and id but always on (no enable, not in
# set_event), as the kernel's; header_page and header_event as the
# kernel's; `echo sched:sched_process_fork > set_event` and a traced
# server's forks show in trace.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s
cd "$MNT" || exit 1

grep -E '^(sched|signal|utrace|ftrace):' available_events >"$TOP/avail.txt"
expect "available_events" "$TOP/avail.txt" <<'EOF2'
sched:sched_process_exec
sched:sched_process_exit
sched:sched_process_fork
sched:sched_process_free
sched:sched_process_wait
signal:signal_deliver
signal:signal_generate
utrace:dlclose
utrace:dlopen
utrace:thread_exit
utrace:thread_start
EOF2
echo $(ls events/ftrace) $(ls events/ftrace/print) >"$TOP/ftrace.txt"
expect "events/ftrace/: print, with the kernel's files but enable" "$TOP/ftrace.txt" <<'EOF2'
print filter format hist id trigger
EOF2
expect "events/ftrace/print/format" events/ftrace/print/format <<'EOF2'
name: print
ID: 5
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:unsigned long ip;	offset:8;	size:8;	signed:0;
	field:char buf[];	offset:16;	size:0;	signed:0;

print fmt: "%ps: %s", (void *)REC->ip, REC->buf
EOF2
expect_eq "events/ftrace/print/id" 5 "$(cat events/ftrace/print/id)"
expect "events/sched/sched_process_fork/format" events/sched/sched_process_fork/format <<'EOF2'
name: sched_process_fork
ID: 1010
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:__data_loc char[] parent_comm;	offset:8;	size:4;	signed:0;
	field:pid_t parent_pid;	offset:12;	size:4;	signed:1;
	field:__data_loc char[] child_comm;	offset:16;	size:4;	signed:0;
	field:pid_t child_pid;	offset:20;	size:4;	signed:1;

print fmt: "comm=%s pid=%d child_comm=%s child_pid=%d", __get_str(parent_comm), REC->parent_pid, __get_str(child_comm), REC->child_pid
EOF2
expect "events/header_page, as the kernel's" events/header_page <<'EOF2'
	field: u64 timestamp;	offset:0;	size:8;	signed:0;
	field: local_t commit;	offset:8;	size:8;	signed:1;
	field: int overwrite;	offset:8;	size:1;	signed:1;
	field: char data;	offset:16;	size:4080;	signed:0;
EOF2
expect "events/header_event, as the kernel's" events/header_event <<'EOF2'
# compressed entry header
	type_len    :    5 bits
	time_delta  :   27 bits
	array       :   32 bits

	padding     : type == 29
	time_extend : type == 30
	time_stamp : type == 31
	data max type_len  == 28
EOF2
# On a kernel with tracefs readable here, every format but the id is the kernel's, byte for byte.
for e in sched/sched_process_fork sched/sched_process_exec sched/sched_process_exit sched/sched_process_free \
	sched/sched_process_wait \
	signal/signal_generate signal/signal_deliver ftrace/print; do
	k=/sys/kernel/tracing/events/$e/format
	[ -r "$k" ] && grep -q . "$k" 2>/dev/null || continue
	diff <(grep -v '^ID: ' "$k") <(grep -v '^ID: ' "events/$e/format") >/dev/null ||
		fail "events/$e/format differs from the kernel's: $(diff <(grep -v '^ID: ' "$k") <(grep -v '^ID: ' "events/$e/format"))"
done
for h in header_page header_event; do
	k=/sys/kernel/tracing/events/$h
	[ -r "$k" ] && grep -q . "$k" 2>/dev/null || continue
	cmp -s "$k" "events/$h" || fail "events/$h differs from the kernel's"
done

expect_eq "ftrace:print is not in set_event" EINVAL "$(w set_event ftrace:print)"
expect_eq "enable one" OK "$(w set_event sched:sched_process_fork)"
expect_eq "set_event" "sched:sched_process_fork" "$(cat set_event)"
expect_eq "its enable" 1 "$(cat events/sched/sched_process_fork/enable)"
expect_eq "sched's: mixed" X "$(cat events/sched/enable)"
echo >trace
send s "forks 2 0"
wait_for s '^forked 2 '
P=$(pid_of s)
grep -v '^#' trace | mask | sed -E -e "s/\\b$P\\b/P/g" -e 's/child_pid=[0-9]+/child_pid=C/' >"$TOP/t.txt"
expect "the server's forks in trace" "$TOP/t.txt" <<'EOF2'
server-<PID> [<CPU>] ..... <TS>: sched_process_fork: comm=server.gcc-pfe pid=P child_comm=server.gcc-pfe child_pid=C
server-<PID> [<CPU>] ..... <TS>: sched_process_fork: comm=server.gcc-pfe pid=P child_comm=server.gcc-pfe child_pid=C
EOF2
expect_eq "events/enable 0" OK "$(w events/enable 0)"
expect_eq "none enabled" "" "$(cat set_event)"
alive
finish
