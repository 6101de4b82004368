#!/bin/bash
# A recorder killed by SIGKILL cannot remove its private run-time
# directory (/dev/shm/utrace-UID/rec.XXXXXX, its program's buffers):
# it stays while its program runs, and its trace can be extracted from
# it; once the program is gone too, `utrace reset` removes it (issue 17,
# nothing left behind).  A live recording's directory is never touched.
. "$(dirname "$0")/../lib/common.sh"

export UTRACE_DIR=$PWD/run # (reset's own targets: this test's)
P=$(prog threadchurn gcc-pfe)
root=/dev/shm/utrace-$(id -u)
# recdir PID: the recording directory of recorder PID
recdir() { grep -l "^$1 " "$root"/rec.*/recorder 2>/dev/null | head -1 | xargs -r dirname; }

"$UTRACE" record -o k.dat -l c_work -- "$P" 300 1 tids >k.out 2>k.err &
rec=$!
for ((i = 0; i < 500; i++)); do # until the program runs
	ppid=$(pgrep -P $rec -f "^$P 300 ") && break
	sleep 0.01
done
dir=$(recdir $rec)
[ -n "$dir" ] || fail "no recording directory of recorder $rec"
# a second recording, alive while reset runs
"$UTRACE" record -o l.dat -l c_work -- "$P" 3000 1 tids >l.out 2>l.err &
live=$!
ldir=
for ((i = 0; i < 500 && ${#ldir} == 0; i++)); do
	ldir=$(recdir $live)
	sleep 0.01
done
kill -9 $rec
wait $rec 2>/dev/null
check "reset while the program runs" "$UTRACE" reset
[ -d "$dir" ] || fail "reset removed the recording of a running program"
while kill -0 "$ppid" 2>/dev/null; do sleep 0.05; done # the program ends
expect_eq "the program's result" "threadchurn 300 threads total 0" "$(tail -1 k.out)"
# its trace is there until reset
UTRACE_DIR=$dir "$UTRACE" extract -o x.dat 2>x.err || fail "extract: $(cat x.err)"
n=$("$UTRACE" report -i x.dat | grep -c ' c_work <-')
[ "$n" -gt 0 ] || fail "extract from the killed recording: $n calls"
# a reset of another run-time directory leaves it (other tests reset theirs meanwhile)
check "reset of this test's run-time directory" "$UTRACE" reset
[ -d "$dir" ] || fail "a reset of $UTRACE_DIR removed $dir"
# the default one's reset removes it: recordings live there
check "reset" env -u UTRACE_DIR "$UTRACE" reset
[ ! -e "$dir" ] || fail "reset left $dir"
kill -0 $live || fail "the live recording ended early"
[ -n "$ldir" ] && [ -d "$ldir" ] || fail "reset removed a live recording ($ldir)"
pkill -P $live -f "^$P 3000 " # its program ends: the recording ends, and removes its directory
wait $live 2>/dev/null
[ ! -e "$ldir" ] || fail "the live recording left $ldir"
finish
