#!/bin/bash
# A program that blocks SIGBUS and SIGTRAP and raises them (its thread): the
# kernel leaves them pending until it unblocks them.  utrace keeps both
# deliverable underneath (its own int3 and page faults must never meet a
# blocked signal), so a sent one is held and raised again when the program
# unblocks it: the program sees what it sees untraced ("held 0 delivered
# 2"; before: "held 2", its handlers run while it believed them blocked).
. "$(dirname "$0")/../lib/common.sh"

for S in $STYLES; do
	P=$(prog sigheld "$S")
	want=$("$P")
	expect_eq "$S: untraced" "held 0 delivered 2" "$want"
	record "h.$S.dat" -p function -- "$P" || fail "$S: record exited $?: $(cat "h.$S.dat.err")"
	expect_eq "$S: traced" "$want" "$(cat "h.$S.dat.out")"
	expect_eq "$S: its calls" 3 "$(report "h.$S.dat" | grep -c 'sh_work <-')"
	no_crash "h.$S.dat.err"
done
finish
