#!/bin/bash
# trace-cmd 3.1 parses the TRACECLOCK option's payload even in a version 6
# file; an empty payload made it read past a 0-byte buffer, and heap
# leftovers (a "[counter]" from another string) turned its timestamps raw
# now and then.  The option carries the trace_clock text: trace-cmd, run
# under valgrind, reads both versions without an invalid read.
. "$(dirname "$0")/../lib/common.sh"

command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
command -v valgrind >/dev/null || skip "valgrind is not installed"
P=$(prog single "${STYLES%% *}")

for v in --no-compress ""; do
	record t.dat $v -- "$P" || fail "record $v exited $?: $(cat t.dat.err)"
	valgrind -q --error-exitcode=9 trace-cmd report t.dat >t.txt 2>t.vg ||
		fail "trace-cmd report ${v:-(version 7)} under valgrind: $(head -n 12 t.vg)"
	check "timestamps in seconds ${v:-(version 7)}" grep -qE '\] +[0-9]+\.[0-9]{6}: function:' t.txt
done
finish
