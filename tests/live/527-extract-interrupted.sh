#!/bin/bash
# An interrupted extract leaves nothing (issue 17, item 4): its trace.dat
# is written as an unnamed file beside the output and takes the output's
# name only once complete, so SIGINT, SIGTERM or SIGKILL in the middle of
# the file leave neither a half-made file (options offset 0) nor a
# temporary, and a previous file of that name stays as it was.  Complete,
# it replaces that file; /dev/null and /dev/stdout are written in place.
# (UTRACE_TEST_WRITE_DELAY_US holds each page of the file, so the signal
# comes mid-file.)  record, which writes while its program runs, keeps
# writing in place: a killed recorder leaves what it wrote (record/441).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}
check "template" "$UTRACE" start -p function -b 16 -l 'sq_*'
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog seqthreads "$S")" 300 3 </dev/null >prog.out ||
	fail "program"
echo "an older file" >out.dat
ls -A | grep -v "^here\." >here.before

# held SIG: extract writing out.dat, then SIG
held() {
	local sig=$1 pid i st fds=
	env --default-signal=INT UTRACE_TEST_WRITE_DELAY_US=20000 "$UTRACE" extract -o out.dat \
		>extract.out 2>extract.err &
	pid=$!
	for ((i = 0; i < 1000; i++)); do # until it writes a file here (not in run/)
		fds=$(ls -l /proc/$pid/fd 2>/dev/null | grep -F -- "-> $PWD/" | grep -v -F "$PWD/run/")
		[ -n "$fds" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.01
	done
	[ -n "$fds" ] || fail "$sig: extract never opened its output"
	sleep 0.1 # some pages written
	kill -s "$sig" $pid
	wait $pid 2>/dev/null
	st=$?
	expect_eq "$sig: killed by it" "$((128 + $(kill -l "$sig")))" "$st"
	expect_eq "$sig: the older file as it was" "an older file" "$(cat out.dat)"
	ls -A | grep -v -e '^here\.' -e '^extract\.\(out\|err\)$' >here.after
	check "$sig: nothing new here" cmp here.before here.after
}

for sig in INT TERM KILL; do
	held $sig
done

check "extract" "$UTRACE" extract -o out.dat
report out.dat | count_funcs >c.txt
expect "extract: every call, in the file that replaced the older one" c.txt <<'EOF'
sq_done 1
sq_thread 300
sq_work 900
EOF
ls -A | grep -v -e '^here\.' -e '^extract\.\(out\|err\)$' -e '^c\.txt$' -e '^out\.dat\.rerr$' >here.after
check "nothing else here" cmp here.before here.after

# outputs that are not regular files: in place (each extract removes the dead session)
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog seqthreads "$S")" 300 3 </dev/null >prog.out ||
	fail "program"
n=$("$UTRACE" extract -o /dev/stdout | wc -c)
[ "$n" -gt 16384 ] || fail "extract to /dev/stdout: $n bytes"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog seqthreads "$S")" 300 3 </dev/null >prog.out ||
	fail "program"
check "extract to /dev/null" "$UTRACE" extract -o /dev/null
expect_eq "/dev/null stays a device" c "$(stat -c %F /dev/null | cut -c1)"
finish
