#!/bin/bash
# A writer behind the program (converting and compressing cost more than the
# program's calls) does not make a lossless record's program wait: what the
# full queue cannot take goes to the thread's spool on disk, which the
# writer reads back as it goes, in order, while the program runs on; a
# thread whose spool the writer caught up with goes back to the queue, and
# spills again at the next burst.  Only when the backlog on disk reaches its
# bound does the program wait, and record says how long it waited.
# Test hooks: UTRACE_TEST_QUEUE_BLOCKS=1 (a 2 MiB queue),
# UTRACE_TEST_WRITE_DELAY_US (the writer sleeps per chunk of ring data),
# UTRACE_TEST_SPOOL_MAX (the backlog's bound, bytes).
. "$(dirname "$0")/../lib/common.sh"

S=${STYLES%% *}
P=$(prog callmany "$S")
# three bursts of cm_fib(23) (92735 calls each) 300 ms apart, and main
calls=$((3 * 92735 + 1))

# the call graph: durations, CPUs, CPU-switch lines and the names the
# report adds to closing braces after them left out, and a call whose entry
# and exit a CPU switch kept apart printed as a leaf (the same whatever the
# timing and the CPUs)
graph() {
	report "$1" | events | sed -E 's/^[^|]*\|//; s| /\* [^*]* \*/||' | grep -E '(\{|\}|;)$' |
		awk '{ if (p != "" && $0 ~ /^ *}$/ && p ~ /\(\) \{$/) { sub(/ \{$/, ";", p); print p; p = ""; next }
		       if (p != "") print p; p = $0 } END { if (p != "") print p }'
}

record ref.dat -p function_graph -- "$P" 23 3 300 || fail "reference: record exited $?"
graph ref.dat >ref.txt
expect_eq "reference: calls" $calls "$(grep -cE '\(\)( \{|;)$' ref.txt)"

export UTRACE_TEST_QUEUE_BLOCKS=1 UTRACE_TEST_WRITE_DELAY_US=1000
record spill.dat -p function_graph -- "$P" 23 3 300 ||
	fail "spilled: record exited $?: $(cat spill.dat.err)"
# no note: the program never waited for the writer
[ -s spill.dat.err ] && fail "spilled: record said: $(cat spill.dat.err)"
graph spill.dat >spill.txt
cmp -s ref.txt spill.txt || fail "spilled: the call graph differs: $(diff ref.txt spill.txt | head -5)"

# the backlog's bound reached at once: the program waits, and is told so
UTRACE_TEST_SPOOL_MAX=0 record bound.dat -p function_graph -- "$P" 23 3 300 ||
	fail "bounded: record exited $?: $(cat bound.dat.err)"
grep -q "note: the program's threads waited .* for the recorder to take their events" \
	bound.dat.err || fail "bounded: no note of the waits: $(cat bound.dat.err)"
grep -q 'lost' bound.dat.err && fail "bounded: record lost events: $(cat bound.dat.err)"
graph bound.dat >bound.txt
cmp -s ref.txt bound.txt || fail "bounded: the call graph differs: $(diff ref.txt bound.txt | head -5)"
no_crash spill.dat.err bound.dat.err
finish
