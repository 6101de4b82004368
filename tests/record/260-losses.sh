#!/bin/bash
# Losses are counted exactly: a flight recorder (-O overwrite) and a full
# producer/consumer buffer that drops (-O drop: the kernel's nooverwrite;
# record's default waits instead, tests/record/420) with a tiny -b lose
# events, and entries-written in the header is still the true number of
# calls; stderr says how many.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 P mode
	P=$(prog single "$s")
	# main 1 + s_top 1 + s_middle 3000 + s_leaf 6001
	for mode in overwrite nooverwrite; do
		"$UTRACE" record -O $mode -O drop -b 4 -o l.dat -- "$P" 3000 >out 2>err
		expect_eq "$s $mode: status" 0 $?
		report l.dat | sed -n 3p | sed -E 's/: [0-9]+\//: E\//; s/#P:[0-9]+/#P:N/' >h.txt
		expect "$s $mode: entries-written" h.txt <<'EOF'
# entries-in-buffer/entries-written: E/9003   #P:N
EOF
		grep -qE '^utrace: [0-9]+ events lost' err || fail "$s $mode: no loss reported: $(cat err)"
		e=$(report l.dat | sed -n 3p | sed -E 's/.*: ([0-9]+)\/.*/\1/')
		l=$(sed -nE 's/^utrace: ([0-9]+) events lost.*/\1/p' err)
		expect_eq "$s $mode: in buffer + lost" 9003 $((e + l))
	done
}

for_styles one
finish
