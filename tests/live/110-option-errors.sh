#!/bin/bash
# start, record and profile read the tracing options with one parser: a bad
# value gets exit 2 and the same one-line message naming it from each, and
# nothing runs.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

P=$(prog status "${STYLES%% *}")
rm -rf run
while read -r word args; do
	# shellcheck disable=SC2086
	"$UTRACE" start $args >s.out 2>s.err
	expect_eq "start $args: status" 2 $?
	expect_eq "start $args: stderr lines" 1 "$(wc -l <s.err)"
	grep -qF -- "$word" s.err || fail "start $args: '$word' not in: $(cat s.err)"
	[ -s s.out ] && fail "start $args: stdout: $(cat s.out)"
	for cmd in record profile; do
		[ $cmd = profile ] && [ "${args%% *}" = -p ] && continue # profile takes no tracer
		# shellcheck disable=SC2086
		"$UTRACE" $cmd -o err.out $args -- "$P" >r.out 2>r.err
		expect_eq "$cmd $args: status" 2 $?
		expect_eq "$cmd $args: same message as start" "$(cat s.err)" "$(cat r.err)"
		[ -s r.out ] && fail "$cmd $args: the program ran: $(cat r.out)"
	done
done <<'LIST'
'bogus' -p bogus
'0' -b 0
'2000000' -b 2000000
'12k' -b 12k
'nope' -C nope
'x' --max-graph-depth x
'-1' --max-graph-depth -1
'-1' --thresh -1
'5000000000' --thresh 5000000000
LIST
no_crash s.err r.err
finish
