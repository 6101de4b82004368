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
alive
finish
