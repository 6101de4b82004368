#!/bin/bash
# Shared by the full-disk tests (tests/record/448, 450), sourced after
# common.sh.  full_disk_record DIR PROG [both]: `record -p function_graph` of
# PROG's four pinned threads into DIR/t.dat on a file system too small for
# the trace, then what must hold: record says so and counts what it could
# not write (not as buffer losses), the program runs to its end, and the
# file is a whole trace.dat that report and trace-cmd read; with `both`, with
# both CPUs' events (every CPU gives up the same share of its newest data;
# not where the second CPU's temp file shares the full disk: its first chunk
# may not have fit).

full_disk_record() {
	local dir=$1 p=$2 both=${3:-} st n c
	local bound=
	# With `both`, no backlog on disk (UTRACE_TEST_SPOOL_MAX=0: the program
	# waits for the writer instead): that check is about the file's cut, and
	# a spool on the same small disk can take the room the second CPU's first
	# chunk needs.  Without, the spool shares the full disk (448).
	[ -n "$both" ] && bound=0
	UTRACE_TEST_SPOOL_MAX=$bound \
		"$UTRACE" record -o "$dir/t.dat" -p function_graph -- "$p" 4 100000 pin >full.out 2>full.err
	st=$?
	expect_eq "record's status (the program's)" 0 "$st"
	check "the program ran to its end" grep -q '^threads total' full.out
	grep -q "writing $dir/t.dat failed: No space left on device" full.err ||
		fail "record did not say so: $(cat full.err)"
	no_crash full.err
	grep -q 'events not written' full.err || fail "no count of the events not written: $(cat full.err)"
	grep 'try a larger -b' full.err && fail "the events not written were called buffer losses"
	report "$dir/t.dat" >r.out 2>r.err
	st=$?
	[ "$st" -le 1 ] || fail "report exited $st: $(cat r.err)"
	n=$(grep -c 't_b();' r.out)
	[ "$n" -gt 1000 ] || fail "report printed $n calls of t_b: $(head -3 r.err)"
	[ "$n" -lt 800000 ] || fail "more calls than the disk could hold"
	command -v trace-cmd >/dev/null || return 0
	trace-cmd report "$dir/t.dat" >tc.out 2>tc.err || fail "trace-cmd report failed: $(tail -2 tc.err)"
	[ -n "$both" ] || return 0
	for c in 000 001; do
		grep -q "\[$c\].*funcgraph_entry" tc.out || fail "trace-cmd shows no event of CPU $c"
	done
}
