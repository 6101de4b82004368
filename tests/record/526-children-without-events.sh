#!/bin/bash
# Processes that wrote no event cost no symbols in the file (issue 17,
# item 5): a recording of a shell that runs the traced program and then
# ten /bin/true (each with libutrace loaded, none tracing anything: their
# sessions go when they exit) holds the same symbol table as a recording
# of the program alone.  Before, each child added its objects' symbols
# (a build under LD_PRELOAD: 350 KB a child).
. "$(dirname "$0")/../lib/common.sh"

command -v trace-cmd >/dev/null || skip "no trace-cmd"
P=$(prog threadchurn gcc-pfe)
record a.dat -l c_work -- "$P" 1 1 || fail "alone: record exited $?"
record b.dat -l c_work -- sh -c "$P 1 1; for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true; done" \
	|| fail "with children: record exited $?"
expect_eq "the program ran" "threadchurn 1 threads total 2" "$(cat b.dat.out)"
expect_eq "events" 1 "$(report b.dat | grep -c ' c_work <-')"
na=$(trace-cmd report -f a.dat 2>/dev/null | wc -l)
nb=$(trace-cmd report -f b.dat 2>/dev/null | wc -l)
[ "$na" -gt 100 ] || fail "alone: $na symbols"
expect_eq "symbols: the children add none" "$na" "$nb"
finish
