#!/bin/bash
# A write error mid-run (here a file-size limit, as a full disk would be):
# record says so, the program runs on to its end (untraced from the error
# on), and the file
# keeps its metadata and every whole chunk: report prints those events and
# then one error naming the file and the offset where it was cut.
. "$(dirname "$0")/../lib/common.sh"

S=${STYLES%% *}
P=$(prog callmany "$S")
# 2 MiB: more than a thread's ring file (-b 512), a third of the trace
(
	ulimit -f 2048
	"$UTRACE" record -o lim.dat -b 512 -p function_graph -- "$P" 27 >lim.out 2>lim.err
)
st=$?
expect_eq "record's status (the program's)" 0 "$st"
expect_eq "the program ran to its end" "callmany 27 196418" "$(cat lim.out)"
# mid-run ("the program ran on untraced from there"), or at the end when the
# data was spread over CPUs, each under the limit: record says so either way
grep -q 'writing lim.dat failed: File too large' lim.err ||
	fail "record did not say so: $(cat lim.err)"
no_crash lim.err
[ "$(stat -c %s lim.dat)" -le $((2048 * 1024)) ] || fail "the file is over the limit"
"$UTRACE" report -i lim.dat >r.out 2>r.err
st=$?
[ "$st" -le 1 ] || fail "report exited $st"
[ "$(grep -c 'cm_fib' r.out)" -gt 5000 ] || fail "report printed $(grep -c cm_fib r.out) calls: $(cat r.err)"
if [ "$st" = 1 ]; then
	grep -q 'lim.dat: corrupt page at offset 0x[0-9a-f]*: compressed chunk: truncated' r.err ||
		fail "report's error: $(cat r.err)"
fi
no_crash r.err

# Both CPUs full of data (threads pinned to each, the second CPU's chunks in
# a temp file: a file-size limit leaves no room for a region): at the end
# the tail does not fit, and the CPU with the most data gives up its newest
# chunks, again and again, whichever it is; each keeps the ones that came
# first.  (Before, the first CPU was emptied, then the other one dropped
# whole: about one run in four kept no event at all.)
if [ "$(nproc)" -ge 2 ]; then
	T=$(prog threads "$S")
	(
		ulimit -f 2048
		"$UTRACE" record -o two.dat -b 512 -p function_graph -- "$T" 2 300000 pin \
			>two.out 2>two.err
	)
	expect_eq "two CPUs: the program ran to its end" 0 $?
	grep -q 'writing two.dat failed: File too large' two.err ||
		fail "two CPUs: record did not say so: $(cat two.err)"
	"$UTRACE" report -i two.dat >two.txt 2>two.rerr
	[ $? -le 1 ] || fail "two CPUs: report failed: $(cat two.rerr)"
	n=$(grep -c 't_b();' two.txt)
	[ "$n" -gt 5000 ] || fail "two CPUs: report printed $n calls of t_b: $(cat two.rerr)"
	no_crash two.err two.rerr
fi
finish
