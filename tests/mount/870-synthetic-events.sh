#!/bin/bash
# synthetic_events and inter-event hist triggers (issue 13, item 5; the
# kernel's histogram.rst section 2.2): a synthetic event defined in
# synthetic_events gets events/synthetic/NAME/ like any event; a hist
# variable (ts0=common_timestamp.usecs) set on utest:pair is read by
# utest:guarded's trigger of the same key ($ts0, common_pid) whose onmatch()
# generates the synthetic event with the latency and the round: recorded
# in trace (enabled, filtered by its filter), counted by a hist on the
# synthetic event (triggers run whatever the filter says, as the kernel's).  Bad
# definitions and actions: EINVAL with the kernel's messages in error_log.
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

expect_eq "no synthetic event" "" "$(cat synthetic_events)"
expect_eq "define one" OK "$(a synthetic_events 'gone u8 x')"
expect_eq "> replaces them all" OK "$(w synthetic_events 'pairlat u64 lat; s64 round')"
expect_eq "define another" OK "$(a synthetic_events 'other unsigned int n')"
expect "listed as the kernel lists them" synthetic_events <<'EOF2'
pairlat	u64 lat; s64 round
other	unsigned int n
EOF2
expect_eq "its directory" "enable filter format hist id trigger" \
	"$(ls events/synthetic/pairlat | sort | tr '\n' ' ' | sed 's/ $//')"
sed -E 's/^ID: [0-9]+$/ID: N/' events/synthetic/pairlat/format >"$TOP/fmt.txt"
expect "its format" "$TOP/fmt.txt" <<'EOF2'
name: pairlat
ID: N
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:u64 lat;	offset:8;	size:8;	signed:0;
	field:s64 round;	offset:16;	size:8;	signed:1;

print fmt: "lat=%lu round=%ld", REC->lat, REC->round
EOF2
expect_eq "remove one" OK "$(a synthetic_events '!other')"
expect_eq "removed" "pairlat	u64 lat; s64 round" "$(cat synthetic_events)"

echo >error_log
expect_eq "exists" EEXIST "$(a synthetic_events 'pairlat u32 x')"
expect_eq "bad type" EINVAL "$(a synthetic_events 'bad u65 x')"
expect_eq "bad name" EINVAL "$(a synthetic_events 'bad u64 9x')"
expect_eq "no field" EINVAL "$(a synthetic_events 'bad')"
expect_eq "remove what is not there" ENOENT "$(a synthetic_events '!nosuch')"
sed -E 's/^\[ *[0-9]+\.[0-9]{6}\]/[TS]/' error_log >"$TOP/errlog.txt"
expect "error_log" "$TOP/errlog.txt" <<'EOF2'
[TS] synthetic_events: error: Event already exists
  Command: pairlat u32 x
           ^
[TS] synthetic_events: error: Invalid type
  Command: bad u65 x
               ^
[TS] synthetic_events: error: Illegal name
  Command: bad u64 9x
                   ^
[TS] synthetic_events: error: Command must be of the form: <name> field[;field] ...
  Command: bad
           ^
EOF2

# pair (round i) sets ts0 per thread; guarded (round i) reads it once and generates pairlat
expect_eq "variable" OK "$(a events/utest/pair/trigger 'hist:keys=common_pid:ts0=common_timestamp.usecs')"
M='hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(utest.pair).trace(pairlat,$lat,arg1)'
expect_eq "onmatch" OK "$(a events/utest/guarded/trigger "$M")"
expect_eq "a hist on the synthetic event" OK "$(a events/synthetic/pairlat/trigger 'hist:keys=round:vals=hitcount:sort=round')"
echo 1 >events/synthetic/pairlat/enable
expect_eq "a filter on the synthetic event" OK "$(w events/synthetic/pairlat/filter 'round != 1')"
expect "the trigger files" <(cat events/utest/pair/trigger events/utest/guarded/trigger) <<'EOF2'
hist:keys=common_pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global [active]
hist:keys=common_pid:vals=hitcount:lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(utest.pair).trace(pairlat,$lat,arg1) [active]
EOF2
run_req u 3
grep -o 'pairlat: .*' trace | sed -E 's/lat=[0-9]+/lat=N/' >"$TOP/tr.txt"
expect "the synthetic events its filter passes in trace" "$TOP/tr.txt" <<'EOF2'
pairlat: lat=N round=0
pairlat: lat=N round=2
EOF2
expect "the synthetic event's hist" events/synthetic/pairlat/hist <<'EOF2'
# event histogram
#
# trigger info: hist:keys=round:vals=hitcount:sort=round:size=2048 [active]
#

{ round:          0 } hitcount:          1
{ round:          1 } hitcount:          1
{ round:          2 } hitcount:          1

Totals:
    Hits: 3
    Entries: 3
    Dropped: 0
EOF2
# onmax and onchange: the new value per key, and the fields saved with it
expect_eq "onmax" OK "$(a events/utest/guarded/trigger 'hist:keys=common_pid:r=arg1:onmax($r).save(arg1,arg2)')"
expect_eq "onchange" OK "$(a events/utest/konst/trigger 'hist:keys=common_pid:k=arg1:onchange($k).save(arg1)')"
run_req u 3
grep -A1 '^{' events/utest/guarded/hist | sed -E 's/common_pid: +[0-9]+/common_pid: PID/' >"$TOP/max.txt"
expect "the newest hist first: the round's maximum and the runs then" "$TOP/max.txt" <<'EOF2'
{ common_pid: PID } hitcount:          3
	max:          5  arg1:          5  arg2:          6
--
{ common_pid: PID } hitcount:          6

EOF2
grep -A1 '^{' events/utest/konst/hist | sed -E 's/common_pid: +[0-9]+/common_pid: PID/' >"$TOP/chg.txt"
expect "onchange: set once (always 42)" "$TOP/chg.txt" <<'EOF2'
{ common_pid: PID } hitcount:          3
	changed:         42  arg1:         42
EOF2
expect_eq "in use: not removed" EBUSY "$(a synthetic_events '!pairlat')"

echo >error_log
expect_eq "unknown synthetic event" EINVAL "$(a events/utest/konst/trigger 'hist:keys=common_pid:onmatch(utest.pair).trace(nosuch,arg1)')"
expect_eq "param count" EINVAL "$(a events/utest/konst/trigger 'hist:keys=common_pid:onmatch(utest.pair).trace(pairlat,arg1)')"
expect_eq "snapshot on onmatch" EINVAL "$(a events/utest/konst/trigger 'hist:keys=common_pid:onmatch(utest.pair).snapshot()')"
expect_eq "onmax of a field" EINVAL "$(a events/utest/konst/trigger 'hist:keys=common_pid:onmax(arg1).save(arg1)')"
expect_eq "a variable nobody defines" EINVAL "$(a events/utest/konst/trigger 'hist:keys=common_pid:d=arg1-$nosuch')"
sed -E 's/^\[ *[0-9]+\.[0-9]{6}\]/[TS]/' error_log >"$TOP/errlog2.txt"
expect "error_log of the actions" "$TOP/errlog2.txt" <<'EOF2'
[TS] hist:utest:konst: error: Couldn't find synthetic event
  Command: hist:keys=common_pid:onmatch(utest.pair).trace(nosuch,arg1)
                                                          ^
[TS] hist:utest:konst: error: Param count doesn't match synthetic event field count
  Command: hist:keys=common_pid:onmatch(utest.pair).trace(pairlat,arg1)
                                                          ^
[TS] hist:utest:konst: error: Handler doesn't support action
  Command: hist:keys=common_pid:onmatch(utest.pair).snapshot()
                                                    ^
[TS] hist:utest:konst: error: For onmax(x) or onchange(x), x must be a variable
  Command: hist:keys=common_pid:onmax(arg1).save(arg1)
                                      ^
[TS] hist:utest:konst: error: Couldn't find variable
  Command: hist:keys=common_pid:d=arg1-$nosuch
                                       ^
EOF2
send u quit
wait "$P" 2>/dev/null
finish
