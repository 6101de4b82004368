#!/bin/bash
# Event filters in the mount (issue 13 item 4, SPEC §9.3): an event's
# filter file reads "none", takes the kernel's filter language and reads
# back as written; the processes judge each event before it is written;
# "0" clears.  A filter that does not parse is EINVAL and changes nothing
# in force: the file shows the filter, a caret under the fault and
# "parse_error: MESSAGE" (the kernel's text and column), error_log an
# "event filter parse error" entry.  The provider's filter sets every
# event that has the fields, reports the others in their own files.
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

echo $(ls events/utest/pair) >"$TOP/evfiles.txt"
expect "events/utest/pair/" "$TOP/evfiles.txt" <<'EOF2'
enable filter format hist id trigger
EOF2
expect_eq "no filter" none "$(cat events/utest/pair/filter)"
expect_eq "enable" OK "$(w set_event 'utest:pair utest:memory')"
expect_eq "a filter" OK "$(w events/utest/pair/filter 'arg1 >= 1 && arg2 < -1000')"
expect_eq "reads back as written" "arg1 >= 1 && arg2 < -1000" "$(cat events/utest/pair/filter)"
expect_eq "the process's own file" "arg1 >= 1 && arg2 < -1000" "$(cat "processes/$P/events/utest/pair/filter")"
echo >trace
run_req u 4
grep -v '^#' trace | sed -E 's/^.*[0-9]\.[0-9]{6}: //' >"$TOP/t1.txt"
expect "judged in the process: rounds 2 and 3 only" "$TOP/t1.txt" <<'EOF2'
memory: arg1=0 arg2=7
memory: arg1=-1000 arg2=8
pair: arg1=2 arg2=-2000
memory: arg1=-2000 arg2=9
pair: arg1=3 arg2=-3000
memory: arg1=-3000 arg2=10
EOF2

# errors: the kernel's report in the file, its entry in error_log, the filter in force kept
echo >error_log
expect_eq "a value missing" EINVAL "$(w events/utest/pair/filter 'arg1 >')"
expect "the report" events/utest/pair/filter <<'EOF2'
arg1 >
      ^
parse_error: Invalid value (did you forget quotes)?

EOF2
expect_eq "no such field" EINVAL "$(w events/utest/pair/filter 'nosuchfield == 1')"
expect "the report" events/utest/pair/filter <<'EOF2'
nosuchfield == 1
            ^
parse_error: Field not found

EOF2
expect_eq "a string for a number" EINVAL "$(w events/utest/pair/filter 'arg1 == "str"')"
expect_eq "an open (" EINVAL "$(w events/utest/pair/filter '(arg1 > 1')"
expect "the report" events/utest/pair/filter <<'EOF2'
(arg1 > 1
^
parse_error: Too many '('

EOF2
sed -E 's/^\[ *[0-9]+\.[0-9]{6}\]/[TS]/' error_log >"$TOP/errlog.txt"
expect "error_log" "$TOP/errlog.txt" <<'EOF2'
[TS] event filter parse error: error: Invalid value (did you forget quotes)?
  Command: arg1 >
                  ^
[TS] event filter parse error: error: Field not found
  Command: nosuchfield == 1
                       ^
[TS] event filter parse error: error: Expecting numeric field
  Command: arg1 == "str"
                    ^
[TS] event filter parse error: error: Too many '('
  Command: (arg1 > 1
           ^
EOF2
echo >trace
run_req u 4
grep -v '^#' trace | grep -c 'pair:' >"$TOP/t2.txt"
expect "the filter in force did not change: rounds 4..7 pass" "$TOP/t2.txt" <<'EOF2'
4
EOF2
expect_eq "a good write" OK "$(w events/utest/pair/filter 'arg1 & 1')"
expect_eq "the report gone" "arg1 & 1" "$(cat events/utest/pair/filter)"
expect_eq "0 clears" OK "$(w events/utest/pair/filter 0)"
expect_eq "none again" none "$(cat events/utest/pair/filter)"

# the provider's filter: every event with the fields; the others say so
expect_eq "a provider's filter" OK "$(w events/utest/filter 'arg2 > 8')"
expect "the provider's file: the banner" events/utest/filter <<'EOF2'
### global filter ###
# Use this to set filters for multiple events.
# Only events with the given fields will be affected.
# If no events are modified, an error message will be displayed here
EOF2
expect_eq "pair has arg2" "arg2 > 8" "$(cat events/utest/pair/filter)"
expect_eq "guarded has arg2" "arg2 > 8" "$(cat events/utest/guarded/filter)"
expect "konst has no arg2" events/utest/konst/filter <<'EOF2'
arg2 > 8
^
parse_error: Couldn't find or set field in one of a subsystem's events

EOF2
echo >trace
run_req u 2
grep -v '^#' trace | sed -E 's/^.*[0-9]\.[0-9]{6}: //' >"$TOP/t3.txt"
expect "memory's arg2 is the counter: past 8 from round 8" "$TOP/t3.txt" <<'EOF2'
memory: arg1=-8000 arg2=15
memory: arg1=-9000 arg2=16
EOF2
expect_eq "no event has the field" EINVAL "$(w events/utest/filter 'nosuch == 1')"
expect "the provider's file: the report" events/utest/filter <<'EOF2'
nosuch == 1
^
parse_error: Couldn't find or set field in one of a subsystem's events

EOF2
expect_eq "pair's file: the report too" "parse_error: Couldn't find or set field in one of a subsystem's events" \
	"$(sed -n 3p events/utest/pair/filter)"
grep -c '^event_filter utest:pair .* arg2 > 8$' "$UTRACE_DIR/config" >"$TOP/kept.txt"
expect "pair's filter in force unchanged" "$TOP/kept.txt" <<'EOF2'
1
EOF2
expect_eq "the provider's 0 clears them" OK "$(w events/utest/filter 0)"
expect_eq "pair: none" none "$(cat events/utest/pair/filter)"
expect_eq "konst: none" none "$(cat events/utest/konst/filter)"
expect_eq "the provider's file: the banner again" 4 "$(wc -l <events/utest/filter)"
alive
finish
