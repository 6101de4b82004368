#!/bin/bash
# Issue 17, item 5: an object's symbols go into trace.dat once per mapping
# of it, not once per process: a parent and its forked child share the
# program's mapping and both wrote events, yet each of the program's
# functions is listed once (trace-cmd's function list, read from the
# file's kallsyms).  Processes that exec the same binary anew sit at other
# addresses (ASLR): each such mapping needs its own list, and gets one.
. "$(dirname "$0")/../lib/common.sh"

command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
S=${STYLES%% *}
P=$(prog fork "$S")
record f.dat -p function -- "$P" || fail "record exited $?: $(cat f.dat.err)"
expect_eq "two processes wrote events" 2 "$(report f.dat | events | awk '{print $1}' | sort -u | wc -l)"
trace-cmd report -f f.dat 2>/dev/null >funcs.txt || fail "trace-cmd report -f"
for fn in f_parent_before f_child f_parent_after main; do
	expect_eq "$fn listed once" 1 "$(grep -c " $fn\$" funcs.txt)"
done

Q=$(prog single "$S")
record e.dat -p function -- sh -c "$Q; $Q" || fail "record of two execs exited $?: $(cat e.dat.err)"
trace-cmd report -f e.dat 2>/dev/null >efuncs.txt || fail "trace-cmd report -f (execs)"
n=$(awk '/ s_leaf$/ {print $1}' efuncs.txt | sort -u | wc -l)
expect_eq "s_leaf once per address it had" "$n" "$(grep -c ' s_leaf$' efuncs.txt)"
finish
