#!/bin/bash
# A writer behind the program (the queue between the drainer and the thread
# that converts and compresses is full) does not lose events in lossless
# record: the data waits in the rings, the program waits for room, and the
# marks that let the writer write (and so free the queue) still reach it.
# With -O drop the queue's overflow goes to spool files: complete as well.
# Test hooks: UTRACE_TEST_QUEUE_BLOCKS=1 (a 2 MiB queue) and
# UTRACE_TEST_WRITE_DELAY_US (the writer sleeps per chunk of ring data).
. "$(dirname "$0")/../lib/common.sh"

command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
S=${STYLES%% *}
P=$(prog callmany "$S")
calls=392836 # cm_fib(26) and main
leaves=196418 # its leaves (n < 2): trace-cmd prints each as one entry line

export UTRACE_TEST_QUEUE_BLOCKS=1 UTRACE_TEST_WRITE_DELAY_US=2000
for mode in lossless drop; do
	opt=()
	[ $mode = drop ] && opt=(-O drop -b 100000)
	record $mode.dat "${opt[@]}" -p function_graph -- "$P" 26 ||
		fail "$mode: record exited $?: $(cat $mode.dat.err)"
	[ -s $mode.dat.err ] && fail "$mode: record said: $(cat $mode.dat.err)"
	expect_eq "$mode: entries and exits" "$calls $((calls - leaves))" \
		"$(trace-cmd report $mode.dat 2>/dev/null |
			awk '/funcgraph_entry/{e++} /funcgraph_exit/{x++} END{print e, x}')"
done
finish
