#!/bin/bash
# trace-cmd reads our trace.dat: `trace-cmd report` shows the same tasks,
# pids, CPUs, timestamps (same 6 decimals), functions and parents as
# `utrace report`.
. "$(dirname "$0")/../lib/common.sh"

command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"

# normalized "comm-pid cpu ts func parent" lines, sorted (ties between CPUs
# may be ordered differently)
from_utrace() {
	events | sed -E 's/^ *(.*-[0-9]+) +\[([0-9]+)\] [^ ]+ +([0-9]+\.[0-9]{6}): ([^ ]+) <-([^ ]+)$/\1 \2 \3 \4 \5/' | sort
}
# trace-cmd -t prints nanoseconds ("5414.215705514:"); utrace, like the
# kernel, prints microseconds rounded to nearest (ns + 500) / 1000.  Convert
# trace-cmd's to the same.  (trace-cmd also, rarely, prints raw nanoseconds
# with no dot, "[001]4775196404559:" -- seen twice, not reproduced; the same
# conversion reads those.)
ns_to_us() {
	awk '{
		if (match($0, /\] +[0-9]+\.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]:/)) {
			ts = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", ts)
			split(ts, p, ".")
			sec = p[1] + 0; ns = p[2] + 500
		} else if (match($0, /\] *[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]+:/)) {
			ts = substr($0, RSTART + 1, RLENGTH - 2); gsub(/ /, "", ts)
			sec = int(ts / 1000000000); ns = ts - sec * 1000000000 + 500
		} else {
			print; next
		}
		if (ns >= 1000000000) { sec++; ns -= 1000000000 }
		$0 = substr($0, 1, RSTART) sprintf(" %d.%06d:", sec, int(ns / 1000)) substr($0, RSTART + RLENGTH)
		print
	}'
}
from_tracecmd() {
	grep -E '^ *.+-[0-9]+ +\[[0-9]+\]' | ns_to_us |
		sed -E 's/^ *(.*-[0-9]+) +\[([0-9]+)\] +([0-9]+\.[0-9]{6}): +function: +([^ ]+) +<-- +([^ ]+)$/\1 \2 \3 \4 \5/' | sort
}

one() {
	local s=$1 p=$2 d=tc.dat
	shift 2
	record "$d" -- "$(prog "$p" "$s")" "$@" || fail "$s $p: record exited $?: $(cat "$d.err")"
	report "$d" | from_utrace >u.txt
	trace-cmd report -t -O parent=1 "$d" 2>tc.err | from_tracecmd >t.txt
	local st=$?
	[ "$st" = 0 ] || fail "$s $p: trace-cmd report failed ($st): $(head -n 3 tc.err)"
	[ -s u.txt ] || fail "$s $p: no events"
	if ! cmp -s u.txt t.txt; then
		fail "$s $p: trace-cmd report differs (< utrace, > trace-cmd):"
		diff u.txt t.txt | grep '^[<>]' | head -n 10
		diff u.txt t.txt | grep '^>' | head -n 10
		cp "$d" "failed-$s-$p.dat"; trace-cmd report -O parent=1 "$d" >"failed-$s-$p.txt" 2>&1
	fi
	# without parent=1: function names only, same order per task
	trace-cmd report "$d" 2>/dev/null | grep -E '^ *.+-[0-9]+ +\[[0-9]+\]' |
		sed -E 's/.*function: +([^ ]+)$/\1/' | sort | uniq -c >f1.txt
	report "$d" | funcs | awk '{print $1}' | sort | uniq -c >f2.txt
	cmp -s f1.txt f2.txt || fail "$s $p: function counts differ: $(diff f2.txt f1.txt | head -n 5)"
}

for s in $STYLES; do
	one "$s" single
	one "$s" threads 3 20
done
one "${STYLES%% *}" fork
one "${STYLES%% *}" shlib
one "${STYLES%% *}" dlopen
finish
