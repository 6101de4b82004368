#!/bin/bash
# hist keys on string fields (issue 13, item 5): a process event's
# strings (sched_process_fork's parent_comm and child_comm, __data_loc;
# sched_process_exit's comm, a char[16]) and a USDT probe's string
# argument (tests/progs/usdt_str.c's word, named by tests/usdt/utest.usdt)
# key a hist by their text (one __data_loc string fits the kernel's key
# size, two do not: EINVAL), printed as the kernel prints a string key
# ("%-50s"), sorted by text with sort=, filtered with `if` on a string
# (a process event's or a probe's: ==, ~ globs), and kept in the shared
# table: still there, text and all, after the process exited.
. "$(dirname "$0")/mount.lib"

UTRACE_USDT_DIR=$UT_TESTS/usdt
export UTRACE_USDT_DIR
do_mount
start_server s
mkfifo "$TOP/u.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog usdt_str gcc-pfe)" -i <"$TOP/u.in" >"$TOP/u.out" 2>"$TOP/u.err" &
U=$!
_server_pids+=("$U")
exec {_fd_u}>"$TOP/u.in"
send u ping
wait_for u '^pong$'
cd "$MNT" || exit 1
FT=events/sched/sched_process_fork/trigger
FH=events/sched/sched_process_fork/hist
ET=events/sched/sched_process_exit/trigger
EH=events/sched/sched_process_exit/hist
forks() { send s "forks $1 0"; wait_for s "^forked $1 "; }
# the entries of a hist file, pids masked
entries() { grep '^{' "$1" | sed -E 's/pid: +[0-9]+/pid: P/g'; }

expect_eq "two __data_loc comms: 512 bytes of key, over the kernel's 384" EINVAL \
	"$(a $FT 'hist:keys=parent_comm,child_comm')"
expect_eq "keys=parent_comm,child_pid" OK "$(a $FT 'hist:keys=parent_comm,parent_pid')"
expect_eq "a string filter" OK "$(a $FT 'hist:keys=parent_comm:vals=child_pid if parent_comm == "server.gcc-pfe"')"
expect_eq "a glob that does not match" OK "$(a $FT 'hist:keys=child_comm if child_comm ~ "sh*"')"
expect_eq "a char[16] key" OK "$(a $ET 'hist:keys=comm:sort=comm')"
forks 3
entries $FH >"$TOP/f.txt"
expect "the comms' text, as the kernel prints a string key" "$TOP/f.txt" <<'EOF2'
{ parent_comm: server.gcc-pfe                                     } hitcount:          3  child_pid: P
{ parent_comm: server.gcc-pfe                                    , parent_pid: P } hitcount:          3
EOF2
expect_eq "the glob's trigger matched nothing" "" "$(grep -A3 'child_comm ~' $FH | grep '^{')"
entries $EH >"$TOP/e.txt"
expect "comm[16] of the children that exited" "$TOP/e.txt" <<'EOF2'
{ comm: server.gcc-pfe                                     } hitcount:          3
EOF2

UT=events/utest_str/word/trigger
UH=events/utest_str/word/hist
expect_eq "a USDT string argument as key, sorted by it" OK "$(a $UT 'hist:keys=word:vals=len:sort=word')"
expect_eq "read back" "hist:keys=word:vals=hitcount,len:sort=word:size=2048 [active]" "$(cat $UT)"
expect_eq "a number key, a filter on the string" OK "$(a $UT 'hist:keys=len if word ~ "parse_*"')"
run_req u 6
sed -n '/keys=len/,/^Totals/p' $UH | grep '^{' >"$TOP/f2.txt"
expect "the filter compared the probe's string" "$TOP/f2.txt" <<'EOF2'
{ len:         10 } hitcount:          4
EOF2
sed -n '/keys=word/,/^Totals/p' $UH | grep '^{' >"$TOP/u.txt"
expect "words by their text" "$TOP/u.txt" <<'EOF2'
{ word: cleanup                                            } hitcount:          1  len:          7
{ word: main_loop                                          } hitcount:          1  len:          9
{ word: parse_args                                         } hitcount:          2  len:         20
{ word: parse_line                                         } hitcount:          2  len:         20
EOF2
expect_eq "two 256-byte string keys: over the kernel's key size" EINVAL \
	"$(a events/utest_str/two/trigger 'hist:keys=good,bad')"
expect_eq "one string key and two numbers fit" OK \
	"$(a events/utest_str/two/trigger 'hist:keys=good,n,common_pid')"
send u quit
wait "$U" 2>/dev/null
sed -n '/keys=word/,/^Totals/p' $UH | grep '^{' >"$TOP/u2.txt"
expect "the table and its strings after the process exited" "$TOP/u2.txt" <"$TOP/u.txt"
alive
finish
