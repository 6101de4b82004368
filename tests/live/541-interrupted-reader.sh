#!/bin/bash
# Nothing left behind: show ended in the middle of its work -- SIGPIPE (its
# reader went away), SIGINT, SIGTERM, SIGKILL -- leaves no file, neither in
# $TMPDIR nor in the session root nor here, and ends at once.  Each time
# show is held writing into a full pipe, so it is caught mid-merge.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}
mkdir tmp
export TMPDIR=$PWD/tmp
# small rings: all the exited threads' fit under buffer_total_size_kb (64 MiB)
check "template" "$UTRACE" start -p function -b 16 -l 'sq_*'
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog seqthreads "$S")" 300 3 </dev/null >prog.out ||
	fail "program"
ls -a run >run.before
ls -a | grep -v '^here\.' >here.before

# held SIG: show writing into a pipe nobody reads, then SIG (PIPE: the reader goes)
held() {
	local sig=$1 pid i st
	rm -f out.fifo
	mkfifo out.fifo
	# (a background command of a script ignores SIGINT: as in a terminal, it does not)
	env --default-signal=INT "$UTRACE" show >out.fifo 2>show.err &
	pid=$!
	exec 8<out.fifo
	for ((i = 0; i < 2000; i++)); do
		case $(cat /proc/$pid/wchan 2>/dev/null) in *pipe_write*) break ;; esac
		kill -0 $pid 2>/dev/null || break
		sleep 0.01
	done
	case $(cat /proc/$pid/wchan 2>/dev/null) in
	*pipe_write*) ;;
	*) fail "$sig: show never waited on its full pipe" ;;
	esac
	if [ "$sig" = PIPE ]; then
		exec 8<&-
	else
		kill -s "$sig" $pid
	fi
	# it ends at once (the test's own timeout is the bound)
	wait $pid 2>/dev/null
	st=$?
	[ "$sig" = PIPE ] || exec 8<&-
	expect_eq "$sig: killed by it" "$((128 + $(kill -l "$sig")))" "$st"
	expect_eq "$sig: nothing in \$TMPDIR" "" "$(ls -A tmp)"
	ls -a run >run.after
	check "$sig: nothing new in the session root" cmp run.before run.after
	rm -f out.fifo
	ls -a | grep -v -e '^here\.' -e '^run.after$' -e '^show.err$' >here.after
	check "$sig: nothing new here" cmp here.before here.after
}

for sig in PIPE INT TERM KILL; do
	held $sig
done
finish
