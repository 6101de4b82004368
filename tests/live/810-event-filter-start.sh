#!/bin/bash
# Event filters live (issue 13 item 4): `utrace start -P PID -e EVENT -f
# FILTER` compiles the filter against the probes the running process
# loaded and the process judges each event before writing it; a new start
# replaces the filter, one without -f removes it; a filter that does not
# parse exits 2 with the kernel's report and changes nothing.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/usdt-live.sh"
export UTRACE_DIR=$PWD/run

P=$(prog usdt gcc-pfe)
usdt_live_start "$P"
# pair: arg1 = the round (from 0), arg2 = -1000 * it
pairs() { "$UTRACE" show -P "$pid" 2>/dev/null | events | sed -nE 's/^.* pair: arg1=([0-9]+) .*$/\1/p' | tr '\n' ' '; }

"$UTRACE" start -P "$pid" -e utest:pair -f 'arg1 & 1 && arg2 < -1000' 2>start.err ||
	fail "start -e -f exited $?: $(cat start.err)"
cmd "run 6"
expect_eq "judged in the process" "3 5 " "$(pairs)"
"$UTRACE" start -P "$pid" -e utest:pair -f 'arg1 == 7 || common_pid == 1' 2>start.err ||
	fail "start -e -f again exited $?: $(cat start.err)"
cmd "run 3"
expect_eq "the new filter replaces the old" "7 " "$(pairs)"
"$UTRACE" start -P "$pid" -e utest:pair -f 'arg1 >' 2>bad.err
expect_eq "a bad filter: exit status" 2 "$?"
expect "a bad filter: the kernel's report" bad.err <<'EOF'
utrace: -f: the filter of utest:pair does not parse (Invalid argument):
arg1 >
      ^
parse_error: Invalid value (did you forget quotes)?
EOF
cmd "run 2"
expect_eq "nothing changed" "7 " "$(pairs)"
"$UTRACE" start -P "$pid" -e utest:pair 2>start.err || fail "start -e exited $?: $(cat start.err)"
cmd "run 2"
expect_eq "no -f: no filter" "11 12 " "$(pairs)"
echo quit >&7
wait "$pid"
finish
