#!/bin/bash
# set_event_pid and options/event-fork (issue 13): events are recorded only
# by the listed pids (a process id: every thread of it), judged by each
# process before it writes; `>` replaces, `>>` adds, an empty write clears;
# the list reads ascending, empty when none (the kernel's, SPEC §9.2); junk,
# a negative or `!pid` is EINVAL.  With event-fork, a child forked by a
# listed process adds itself (its own set_event_pid lists it, its events are
# recorded); without, it records none.  Triggers that need the record (hist)
# follow the list, as the kernel's.
. "$(dirname "$0")/mount.lib"

do_mount
for n in u v; do
	start_server $n "$(prog usdt gcc-pfe)" -i
done
start_server s
U=$(pid_of u) V=$(pid_of v) S=$(pid_of s)
cd "$MNT" || exit 1

expect_eq "empty at first" "" "$(cat set_event_pid)"
expect_eq "enable pair" OK "$(w set_event utest:pair)"
expect_eq "list u" OK "$(w set_event_pid "$U")"
expect_eq "read" "$U" "$(cat set_event_pid)"
expect_eq "the process's own" "$U" "$(cat "processes/$V/set_event_pid")"
echo >trace
run_req u 2
run_req v 3
grep -v '^#' trace | grep -c "pair:" >"$TOP/n1.txt"
grep -v '^#' trace | grep -v -- "-$U " | grep -c "pair:" >>"$TOP/n1.txt"
expect "only u's events" "$TOP/n1.txt" <<'EOF2'
2
0
EOF2

expect_eq "add v" OK "$(a set_event_pid "$V")"
printf '%s\n' "$U" "$V" | sort -n >"$TOP/both.txt"
expect "read ascending" set_event_pid <"$TOP/both.txt"
echo >trace
run_req u 1
run_req v 1
expect_eq "both record" 2 "$(grep -v '^#' trace | grep -c 'pair:')"

expect_eq "junk" EINVAL "$(a set_event_pid abc)"
expect_eq "negative" EINVAL "$(a set_event_pid -1)"
expect_eq "!pid" EINVAL "$(a set_event_pid "!$U")"
expect "unchanged" set_event_pid <"$TOP/both.txt"
expect_eq "replace with v" OK "$(w set_event_pid "$V")"
echo >trace
run_req u 1
run_req v 1
expect_eq "only v's now" "1 1" "$(grep -v '^#' trace | grep -c 'pair:') $(grep -v '^#' trace | grep -c -- "-$V ")"

# a hist trigger needs the record: u is not listed, its hits are not counted
expect_eq "hist on pair" OK "$(w events/utest/pair/trigger 'hist:keys=common_pid')"
run_req u 4
run_req v 2
expect_eq "the hist counts v only" "2" "$(grep -o 'Hits: [0-9]*' events/utest/pair/hist | cut -d' ' -f2)"
expect_eq "hist off" OK "$(a events/utest/pair/trigger '!hist:keys=common_pid')"

expect_eq "clear" OK "$(w set_event_pid '')"
expect_eq "empty" "" "$(cat set_event_pid)"
echo >trace
run_req u 1
run_req v 1
expect_eq "every pid records" 2 "$(grep -v '^#' trace | grep -c 'pair:')"

# event-fork: the server's children (exit() records sched_process_exit)
expect_eq "fork and exit events" OK "$(w set_event 'sched:sched_process_fork sched:sched_process_exit')"
expect_eq "list s" OK "$(w set_event_pid "$S")"
expect_eq "event-fork off" 0 "$(cat options/event-fork)"
echo >trace
send s "forks 1 0"
wait_for s '^forked 1 '
grep -v '^#' trace | sed -E 's/^ *([a-z.-]+)-[0-9]+ .*: (sched_[a-z_]+):.*/\1 \2/' >"$TOP/f0.txt"
expect "without event-fork: the parent's fork only" "$TOP/f0.txt" <<'EOF2'
server.gcc-pfe sched_process_fork
EOF2
expect_eq "event-fork on" OK "$(w options/event-fork 1)"
expect_eq "read back" 1 "$(cat options/event-fork)"
echo >trace
send s "forks 2 0"
wait_for s '^forked 2 '
grep -v '^#' trace | sed -E 's/^ *([a-z.-]+)-[0-9]+ .*: (sched_[a-z_]+):.*/\1 \2/' >"$TOP/f1.txt"
expect "with event-fork: the children's exits too" "$TOP/f1.txt" <<'EOF2'
server.gcc-pfe sched_process_fork
server.gcc-pfe sched_process_exit
server.gcc-pfe sched_process_fork
server.gcc-pfe sched_process_exit
EOF2
C=$(grep -v '^#' trace | grep -o 'child_pid=[0-9]*' | head -n 1 | cut -d= -f2)
printf '%s\n' "$S" "$C" | sort -n >"$TOP/child.txt"
expect "the child lists itself" "processes/$C/set_event_pid" <"$TOP/child.txt"
expect_eq "the top level lists what was written" "$S" "$(cat set_event_pid)"

# across exec: tests/progs/procev forks C1 (exits) and C2 (execs procev
# again); a shell lists its own pid, then execs procev (same pid: listed).
# C2's new image starts from the template, which lists only the first pid,
# and keeps its own pid because its previous image's configuration had it.
expect_eq "every sched event" OK "$(w set_event 'sched:*')"
echo >trace
LD_PRELOAD=$UT_BUILD/libutrace.so sh -c 'echo $$ > "$1/set_event_pid" && exec "$2"' _ "$MNT" \
	"$(prog procev gcc-pfe)" >"$TOP/procev.out" 2>&1 || fail "procev: $(cat "$TOP/procev.out")"
P=$(grep -v '^#' trace | sed -nE 's/.* sched_process_fork: comm=[^ ]+ pid=([0-9]+) .*/\1/p' | head -n 1)
C2=$(grep -v '^#' trace | sed -nE 's/.* sched_process_fork: .* child_pid=([0-9]+)$/\1/p' | sed -n 2p)
grep -v '^#' trace | grep -E -- "-$C2 +\[" | sed -E 's/^.*[0-9]{6}: ([a-z_]+):.*/\1/' >"$TOP/c2.txt"
expect "the exec'd child's events, kept by event-fork" "$TOP/c2.txt" <<'EOF2'
sched_process_exec
sched_process_exit
EOF2
expect_eq "the first pid is the template's list" "$P" "$(cat set_event_pid)"
expect_eq "off" OK "$(w options/event-fork 0)"
alive
finish
