#!/bin/bash
# hist triggers (issue 13, item 5): events/SYS/EVT/hist in the kernel's
# format (histogram.rst): keys on an argument with .buckets=N, .log2 and
# common_pid.execname, a value summed, hitcount, sort descending; :pause,
# :continue and :clear; errors in error_log as the kernel logs them; the
# table kept in shared memory, still readable after the process exited.
. "$(dirname "$0")/mount.lib"

do_mount
mkfifo "$TOP/u.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog usdt gcc-pfe)" -i <"$TOP/u.in" >"$TOP/u.out" 2>"$TOP/u.err" &
P=$!
_server_pids+=("$P")
exec {_fd_u}>"$TOP/u.in"
send u ping
wait_for u '^pong$'
cd "$MNT" || exit 1
T=events/utest/pair/trigger
H=events/utest/pair/hist
HIST='hist:keys=arg1.buckets=4:vals=arg1:sort=hitcount.descending'

expect_eq "no hist trigger: an empty hist" "" "$(cat $H)"
# pair's arg1 is the round (0, 1, ...): not enabled, the trigger alone arms it
expect_eq "a hist trigger" OK "$(a $T "$HIST")"
expect_eq "read back" \
	"hist:keys=arg1.buckets=4:vals=hitcount,arg1:sort=hitcount.descending:size=2048 [active]" \
	"$(cat $T)"
run_req u 7
expect "rounds 0..6: buckets 0-3 (4 hits) and 4-7 (3), most hits first" $H <<'EOF2'
# event histogram
#
# trigger info: hist:keys=arg1.buckets=4:vals=hitcount,arg1:sort=hitcount.descending:size=2048 [active]
#

{ arg1: ~ 0-3 } hitcount:          4  arg1:          6
{ arg1: ~ 4-7 } hitcount:          3  arg1:         15

Totals:
    Hits: 7
    Entries: 2
    Dropped: 0
EOF2
expect_eq "nothing recorded: the event is not enabled" 0 "$(grep -c 'pair:' trace)"

# .log2 and common_pid.execname on konst (arg1 is 42), sorted by key
expect_eq "log2" OK "$(a events/utest/konst/trigger 'hist:keys=arg1.log2:sort=arg1')"
expect_eq "execname" OK "$(a events/utest/konst/trigger 'hist:keys=common_pid.execname')"
run_req u 2
sed -E 's/\[ *[0-9]+\]/[PID]/' events/utest/konst/hist >"$TOP/h2.txt"
expect "two hists on one event, newest first" "$TOP/h2.txt" <<'EOF2'
# event histogram
#
# trigger info: hist:keys=common_pid.execname:vals=hitcount:sort=hitcount:size=2048 [active]
#

{ common_pid: usdt.gcc-pfe    [PID] } hitcount:          2

Totals:
    Hits: 2
    Entries: 1
    Dropped: 0


# event histogram
#
# trigger info: hist:keys=arg1.log2:vals=hitcount:sort=arg1.log2:size=2048 [active]
#

{ arg1: ~ 2^6  } hitcount:          2

Totals:
    Hits: 2
    Entries: 1
    Dropped: 0
EOF2
expect_eq "execname's pid is the thread's" "$P" \
	"$(sed -nE 's/^\{ common_pid: usdt.gcc-pfe +\[ *([0-9]+)\].*/\1/p' events/utest/konst/hist)"

# pause, continue, clear
expect_eq "pause" OK "$(a $T "$HIST:pause")"
expect_eq "paused" "[paused]" "$(cat $T | sed 's/.* //')"
run_req u 1
expect_eq "no hit counted while paused" "Hits: 9" "$(grep -o 'Hits: [0-9]*' $H)"
grep -q 'size=2048 \[paused\]$' $H || fail "hist: trigger info says paused"
expect_eq "continue" OK "$(a $T "$HIST:continue")"
expect_eq "active" "[active]" "$(cat $T | sed 's/.* //')"
run_req u 1
expect_eq "counted again: rounds 8 and 10" "{ arg1: ~ 8-11 } hitcount:          2  arg1:         18" \
	"$(grep '8-11' $H)"
expect_eq "clear" OK "$(a $T "$HIST:clear")"
expect_eq "cleared" "Hits: 0 Entries: 0" "$(grep -oE '(Hits|Entries): [0-9]+' $H | tr '\n' ' ' | sed 's/ $//')"
expect_eq "still active" "[active]" "$(cat $T | sed 's/.* //')"
run_req u 1

# errors: the kernel's messages in error_log, nothing changed
echo >error_log
expect_eq "the same hist again" EEXIST "$(a $T "$HIST")"
expect_eq "no such field" EINVAL "$(a $T 'hist:keys=nosuch')"
expect_eq "bad modifier" EINVAL "$(a $T 'hist:keys=arg1.bogus')"
expect_eq "sort on neither" EINVAL "$(a $T 'hist:keys=arg1:sort=arg2')"
expect_eq "clear a hist that is not there" EINVAL "$(a $T 'hist:keys=arg2:clear')"
sed -E 's/^\[ *[0-9]+\.[0-9]{6}\]/[TS]/' error_log >"$TOP/errlog.txt"
expect "error_log" "$TOP/errlog.txt" <<'EOF2'
[TS] hist:utest:pair: error: Hist trigger already exists
  Command: hist:keys=arg1.buckets=4:vals=arg1:sort=hitcount.descending
           ^
[TS] hist:utest:pair: error: Couldn't find field
  Command: hist:keys=nosuch
                     ^
[TS] hist:utest:pair: error: Invalid field modifier
  Command: hist:keys=arg1.bogus
                     ^
[TS] hist:utest:pair: error: Sort field must be a key or a val
  Command: hist:keys=arg1:sort=arg2
                               ^
[TS] hist:utest:pair: error: Can't clear or continue a nonexistent hist trigger
  Command: hist:keys=arg2:clear
           ^
EOF2
expect_eq "one trigger still" 1 "$(wc -l <$T)"

# a second process, started after the trigger: its table is merged in
mkfifo "$TOP/v.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog usdt gcc-pfe)" -i <"$TOP/v.in" >"$TOP/v.out" 2>"$TOP/v.err" &
P2=$!
_server_pids+=("$P2")
exec {_fd_v}>"$TOP/v.in"
send v ping
wait_for v '^pong$'
run_req v 2
grep '^{' $H >"$TOP/h3.txt"
expect "two processes' tables merged: rounds 0, 1 of the second" "$TOP/h3.txt" <<'EOF2'
{ arg1: ~ 0-3 } hitcount:          2  arg1:          1
{ arg1: ~ 8-11 } hitcount:          1  arg1:         11
EOF2

# the processes exit: their tables stay readable
send u quit
send v quit
wait "$P" "$P2" 2>/dev/null
expect_eq "exited" 1 "$(kill -0 "$P" 2>/dev/null && echo 0 || echo 1)"
expect_eq "the hist of exited processes" "{ arg1: ~ 8-11 } hitcount:          1  arg1:         11" \
	"$(grep '8-11' $H)"
expect_eq "their totals" "Hits: 3" "$(grep -o 'Hits: [0-9]*' $H)"
expect_eq "remove the hist trigger" OK "$(a $T "!$HIST")"
expect_eq "no hist left" "" "$(cat $H 2>/dev/null)"
alive
finish
