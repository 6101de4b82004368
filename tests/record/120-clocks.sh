#!/bin/bash
# Clocks (-C): timestamps never go backwards, per thread and merged; counter
# counts events; mono is CLOCK_MONOTONIC; x86-tsc and counter print integers.
. "$(dirname "$0")/../lib/common.sh"

S=${STYLES%% *}
P=$(prog threads "$S")

# ts FILE: "tid timestamp" per event (timestamp digits only, dot removed)
ts() { events <"$1" | sed -E 's/^ *[^ ]*-([0-9]+) +\[[0-9]+\] [^ ]+ +([0-9.]+): .*/\1 \2/'; }

monotonic() { # LABEL FILE(tid ts)
	awk '{print $2}' "$2" | sort -c -g 2>/dev/null || fail "$1: merged timestamps go backwards"
	awk '{ if (($1 in last) && $2 < last[$1]) { print "tid " $1 ": " last[$1] " then " $2; exit 1 } last[$1] = $2 }' "$2" ||
		fail "$1: a thread's timestamps go backwards"
}

for c in local global mono mono_raw boot perf counter uptime x86-tsc; do
	record c.dat -C "$c" -- "$P" 4 40 || fail "-C $c: record exited $?: $(cat c.dat.err)"
	report c.dat >r.txt || fail "-C $c: report exited $?: $(cat c.dat.rerr)"
	n=$(events <r.txt | wc -l)
	expect_eq "-C $c: events" $((2 + 4 * (1 + 40 * 4))) "$n"
	ts r.txt >t.txt
	monotonic "-C $c" t.txt
	case $c in
	counter | x86-tsc | uptime)
		grep -vE '^[0-9]+ [0-9]+$' t.txt >bad.txt
		[ -s bad.txt ] && fail "-C $c: timestamps are not integers: $(head -n 1 bad.txt)" ;;
	*)
		grep -vE '^[0-9]+ [0-9]+\.[0-9]{6}$' t.txt >bad.txt
		[ -s bad.txt ] && fail "-C $c: timestamps are not SECONDS.USECS: $(head -n 1 bad.txt)" ;;
	esac
	if [ "$c" = counter ]; then
		# a global counter: every event has its own value
		expect_eq "-C counter: distinct values" "$n" "$(awk '{print $2}' t.txt | sort -u | wc -l)"
	fi
	no_crash c.dat.err c.dat.rerr
done

# mono: CLOCK_MONOTONIC, between a reading before and one after the run.
if command -v python3 >/dev/null; then
	mono() { python3 -c 'import time; print("%.6f" % time.clock_gettime(time.CLOCK_MONOTONIC))'; }
	b=$(mono)
	record m.dat -C mono -- "$(prog single "$S")" || fail "-C mono: record exited $?"
	a=$(mono)
	first=$(report m.dat | events | head -n 1 | sed -E 's/.* ([0-9]+\.[0-9]{6}): .*/\1/')
	awk -v b="$b" -v a="$a" -v f="$first" 'BEGIN { exit !(f >= b && f <= a) }' ||
		fail "-C mono: first timestamp $first not within [$b, $a]"
fi
# the clock's name reaches trace-cmd's file: trace-cmd report agrees
finish
