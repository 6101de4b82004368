#!/bin/bash
# record -P holds one spool file however many threads come and go: a
# program that runs 1200 short threads one after another, recorded with at
# most 32 open files, every call in the file.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}
N=1200
mkfifo sq.in
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog seqthreads "$S")" $N 3 go <sq.in >prog.out &
P=$!
exec 7>sq.in
for ((i = 0; i < 500; i++)); do
	"$UTRACE" ps | has " $P " && break
	sleep 0.01
done
(
	ulimit -n 32
	exec "$UTRACE" record -P $P -p function -l 'sq_*' -o p.dat >rec.out 2>rec.err
) &
rec=$!
for ((i = 0; i < 500; i++)); do
	"$UTRACE" ps | has ' function ' && break
	sleep 0.01
done
echo go >&7
for ((i = 0; i < 3000; i++)); do
	grep -q '^threads ' prog.out && break
	kill -0 $rec 2>/dev/null || break
	sleep 0.01
done
expect_eq "program" "threads $N 7800" "$(cat prog.out)"
sleep 0.2
kill -INT $rec
wait $rec || fail "record -P status $?: $(cat rec.err)"
exec 7>&-
wait $P
report p.dat | count_funcs >c.txt
expect "every call" c.txt <<EOF
sq_done 1
sq_thread $N
sq_work $((3 * N))
EOF
no_crash rec.err p.dat.rerr
finish
