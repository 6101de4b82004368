#!/bin/bash
# The mount's available_events and set_event (issue 13): the USDT probes
# of the traced processes listed as the kernel lists its events
# (system:event, the provider as the system), enabled and disabled with
# the kernel's words (O_TRUNC replaces, >> adds, !word removes, globs);
# the events in trace; a word naming no probe is EINVAL with the reason in
# error_log and changes nothing; a disabled probe's semaphore is lowered.
. "$(dirname "$0")/mount.lib"

do_mount
# start_server's protocol, with tests/progs/usdt driven from stdin (-i)
mkfifo "$TOP/u.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog usdt gcc-pfe)" -i <"$TOP/u.in" >"$TOP/u.out" 2>"$TOP/u.err" &
P=$!
_server_pids+=("$P")
exec {_fd_u}>"$TOP/u.in"
send u ping
wait_for u '^pong$'
cd "$MNT" || exit 1

grep '^utest:' available_events >"$TOP/avail.txt"
expect "available_events" "$TOP/avail.txt" <<'EOF2'
utest:guarded
utest:konst
utest:memory
utest:noargs
utest:pair
utest:string
utest:widths
EOF2
expect_eq "the process's own list" "$(grep -c '^utest:' available_events)" \
	"$(grep -c '^utest:' "processes/$P/available_events")"
expect_eq "nothing enabled at first" "" "$(cat set_event)"

expect_eq "enable one" OK "$(w set_event utest:pair)"
expect_eq "add with a glob" OK "$(a set_event 'utest:gu*')"
cat set_event >"$TOP/set1.txt"
expect "set_event lists the enabled events" "$TOP/set1.txt" <<'EOF2'
utest:guarded
utest:pair
EOF2
echo >trace
run_req u 2
expect_eq "guarded's semaphore raised" 1 "$(grep -c '^ran 2 guarded 2$' "$TOP/u.out")"
grep -v '^#' trace | sed -E 's/^.*[0-9]\.[0-9]{6}: //' >"$TOP/t1.txt"
expect "the events in trace" "$TOP/t1.txt" <<'EOF2'
pair: arg1=0 arg2=0
guarded: arg1=0 arg2=1
pair: arg1=1 arg2=-1000
guarded: arg1=1 arg2=2
EOF2

expect_eq "a word naming no probe" EINVAL "$(w set_event utest:nosuch)"
grep -c "set_event: 'utest:nosuch' names no event" error_log >"$TOP/errlog.txt"
expect "error_log says why" "$TOP/errlog.txt" <<'EOF2'
1
EOF2
expect_eq "nothing changed" "utest:guarded utest:pair" "$(cat set_event | tr '\n' ' ' | sed 's/ $//')"

expect_eq "remove one" OK "$(a set_event '!utest:pair')"
expect_eq "one left" "utest:guarded" "$(cat set_event)"
expect_eq "clear" OK "$(w set_event '')"
expect_eq "none left" "" "$(cat set_event)"
run_req u 1
expect_eq "guarded's semaphore lowered" 1 "$(grep -c '^ran 1 guarded 2$' "$TOP/u.out")"

# events/: a directory per provider and per event, enable 0/1/X, format, id
echo $(ls events) >"$TOP/events.txt"
expect "events/" "$TOP/events.txt" <<'EOF2'
enable ftrace header_event header_page sched signal utest utrace
EOF2
expect "events/header_page: the ring's page, as the kernel's" events/header_page <<'EOF2'
	field: u64 timestamp;	offset:0;	size:8;	signed:0;
	field: local_t commit;	offset:8;	size:8;	signed:1;
	field: int overwrite;	offset:8;	size:1;	signed:1;
	field: char data;	offset:16;	size:4080;	signed:0;
EOF2
expect_eq "events/header_event" "# compressed entry header" "$(head -n 1 events/header_event)"
echo $(ls events/utest) >"$TOP/evdir.txt"
expect "events/utest/" "$TOP/evdir.txt" <<'EOF2'
enable filter guarded konst memory noargs pair string widths
EOF2
echo $(ls events/utest/pair) >"$TOP/evfiles.txt"
expect "events/utest/pair/" "$TOP/evfiles.txt" <<'EOF2'
enable filter format hist id trigger
EOF2
expect_eq "an event's id" "$(cat events/utest/pair/id)" "$(grep -m1 '^ID: ' events/utest/pair/format | cut -d' ' -f2)"
sed -e '/^ID: /d' events/utest/widths/format >"$TOP/format.txt"
expect "an event's format" "$TOP/format.txt" <<'EOF2'
name: widths
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:s8 arg1;	offset:8;	size:1;	signed:1;
	field:u16 arg2;	offset:16;	size:2;	signed:0;
	field:u64 arg3;	offset:24;	size:8;	signed:0;

print fmt: "arg1=%hhd arg2=%hu arg3=%lu", REC->arg1, REC->arg2, REC->arg3
EOF2
expect_eq "enable: none" 0 "$(cat events/utest/enable)"
expect_eq "enable one event" OK "$(w events/utest/konst/enable 1)"
expect_eq "the event's enable" 1 "$(cat events/utest/konst/enable)"
expect_eq "the provider's: mixed" X "$(cat events/utest/enable)"
expect_eq "set_event agrees" "utest:konst" "$(cat set_event)"
expect_eq "enable a provider" OK "$(w events/utest/enable 1)"
expect_eq "the provider's: all" 1 "$(cat events/utest/enable)"
expect_eq "disable one" OK "$(w events/utest/pair/enable 0)"
expect_eq "set_event without it" 6 "$(grep -c '^utest:' set_event)"
expect_eq "enable takes 0 or 1" EINVAL "$(w events/utest/pair/enable 2)"
expect_eq "events/enable 0: none" OK "$(w events/enable 0)"
expect_eq "nothing enabled" "" "$(cat set_event)"
expect_eq "no such event" ENOENT "$(werr cat events/utest/nosuch/enable)"
run_req u 3
expect_eq "guarded's semaphore still down" "ran 3 guarded 2" "$(tail -n 1 "$TOP/u.out")"
alive
finish
