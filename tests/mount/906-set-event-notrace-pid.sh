#!/bin/bash
# set_event_notrace_pid (issue 13): the kernel's list of pids whose events
# are not recorded (a process id: every thread of it), whatever
# set_event_pid says; `>` replaces, `>>` adds, an empty write clears; reads
# ascending, empty when none; junk, a negative or `!pid` is EINVAL (SPEC
# §9.2).  With options/event-fork a child forked by a listed process lists
# itself and records nothing (across exec too); without, the child records.
# Per process under processes/PID/.  `record --event-notrace-pid`.
. "$(dirname "$0")/mount.lib"

do_mount
for n in u v; do
	start_server $n "$(prog usdt gcc-pfe)" -i
done
start_server s
U=$(pid_of u) V=$(pid_of v) S=$(pid_of s)
cd "$MNT" || exit 1

expect_eq "the file" "-rw-r-----" "$(stat -c %A set_event_notrace_pid)"
expect_eq "empty at first" "" "$(cat set_event_notrace_pid)"
expect_eq "enable pair" OK "$(w set_event utest:pair)"
expect_eq "not u" OK "$(w set_event_notrace_pid "$U")"
expect_eq "read" "$U" "$(cat set_event_notrace_pid)"
expect_eq "the process's own" "$U" "$(cat "processes/$V/set_event_notrace_pid")"
echo >trace
run_req u 2
run_req v 3
expect_eq "v's events only" "3 0" \
	"$(grep -v '^#' trace | grep -c 'pair:') $(grep -v '^#' trace | grep -c -- "-$U ")"

expect_eq "add v" OK "$(a set_event_notrace_pid "$V")"
printf '%s\n' "$U" "$V" | sort -n >"$TOP/both.txt"
expect "read ascending" set_event_notrace_pid <"$TOP/both.txt"
echo >trace
run_req u 1
run_req v 1
expect_eq "none records" 0 "$(grep -v '^#' trace | grep -c 'pair:')"
expect_eq "junk" EINVAL "$(a set_event_notrace_pid abc)"
expect_eq "negative" EINVAL "$(a set_event_notrace_pid -1)"
expect_eq "!pid" EINVAL "$(a set_event_notrace_pid "!$U")"
expect "unchanged" set_event_notrace_pid <"$TOP/both.txt"

# beside set_event_pid: listed in both, not recorded (the kernel's)
expect_eq "set_event_pid u v" OK "$(w set_event_pid "$U $V")"
expect_eq "notrace v" OK "$(w set_event_notrace_pid "$V")"
echo >trace
run_req u 1
run_req v 1
expect_eq "u's only" "1 1" \
	"$(grep -v '^#' trace | grep -c 'pair:') $(grep -v '^#' trace | grep -c -- "-$U ")"
expect_eq "clear set_event_pid" OK "$(w set_event_pid '')"

# under processes/PID/: one process's list
expect_eq "clear" OK "$(w set_event_notrace_pid '')"
expect_eq "empty" "" "$(cat set_event_notrace_pid)"
expect_eq "u's own list" OK "$(w "processes/$U/set_event_notrace_pid" "$U")"
expect_eq "not v's" "" "$(cat "processes/$V/set_event_notrace_pid")"
echo >trace
run_req u 1
run_req v 2
expect_eq "v records, u not" "2 0" \
	"$(grep -v '^#' trace | grep -c 'pair:') $(grep -v '^#' trace | grep -c -- "-$U ")"
expect_eq "clear u's" OK "$(w "processes/$U/set_event_notrace_pid" '')"
echo >trace
run_req u 1
run_req v 1
expect_eq "every pid records" 2 "$(grep -v '^#' trace | grep -c 'pair:')"

# event-fork: the server's children (exit() records sched_process_exit)
expect_eq "fork and exit events" OK "$(w set_event 'sched:sched_process_fork sched:sched_process_exit')"
expect_eq "not s" OK "$(w set_event_notrace_pid "$S")"
echo >trace
send s "forks 1 0"
wait_for s '^forked 1 '
grep -v '^#' trace | sed -E 's/^ *([a-z.-]+)-[0-9]+ .*: (sched_[a-z_]+):.*/\1 \2/' >"$TOP/f0.txt"
expect "without event-fork: the child's exit, not the parent's fork" "$TOP/f0.txt" <<'EOF2'
server.gcc-pfe sched_process_exit
EOF2
expect_eq "event-fork on" OK "$(w options/event-fork 1)"
# the children's calls (function events: no pid list applies) keep their sessions
echo handle_request >set_ftrace_filter
echo function >current_tracer
echo >trace
send s "forks 2 1"
wait_for s '^forked 2 '
expect_eq "with event-fork: no event" 0 "$(grep -v '^#' trace | grep -c 'sched_')"
C=$(grep -v '^#' trace | grep handle_request | grep -v -- "-$S " | sed -E 's/^ *[a-z.-]+-([0-9]+) .*/\1/' | head -n 1)
echo nop >current_tracer
echo >set_ftrace_filter
printf '%s\n' "$S" "$C" | sort -n >"$TOP/child.txt"
expect "the child lists itself" "processes/$C/set_event_notrace_pid" <"$TOP/child.txt"
expect_eq "the top level lists what was written" "$S" "$(cat set_event_notrace_pid)"

# across exec: a shell lists its own pid, then execs procev (same pid:
# still listed), which forks C1 (exits) and C2 (execs procev again: its new
# image starts from the template and keeps its pid, listed in its previous
# image's configuration); nothing of theirs is recorded
expect_eq "every sched event" OK "$(w set_event 'sched:*')"
expect_eq "clear" OK "$(w set_event_notrace_pid '')"
echo >trace
LD_PRELOAD=$UT_BUILD/libutrace.so sh -c 'echo $$ > "$1/set_event_notrace_pid" && exec "$2"' _ "$MNT" \
	"$(prog procev gcc-pfe)" >"$TOP/procev.out" 2>&1 || fail "procev: $(cat "$TOP/procev.out")"
expect_eq "nothing of procev and its children (the shell's exec came first)" \
	"sched_process_exec: filename=/usr/bin/sh" \
	"$(grep -v '^#' trace | grep -o 'sched_[a-z_]*: [a-z]*=[^ ]*')"
expect_eq "off" OK "$(w options/event-fork 0)"
expect_eq "clear" OK "$(w set_event_notrace_pid '')"
echo >trace
LD_PRELOAD=$UT_BUILD/libutrace.so sh -c 'echo $$ > "$1/set_event_notrace_pid" && exec "$2"' _ "$MNT" \
	"$(prog procev gcc-pfe)" >"$TOP/procev.out" 2>&1 || fail "procev: $(cat "$TOP/procev.out")"
grep -v '^#' trace | grep -v 'filename=/usr/bin/sh ' | sed -E 's/^.*[0-9]{6}: ([a-z_]+):.*/\1/' >"$TOP/nofork.txt"
expect "without event-fork the children record (C1 exits, C2 execs and exits)" "$TOP/nofork.txt" <<'EOF2'
sched_process_exit
sched_process_exec
sched_process_exit
EOF2
alive
finish
