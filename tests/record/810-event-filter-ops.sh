#!/bin/bash
# record -e EVENT -f FILTER (issue 13 item 4): the kernel's event filter,
# judged in the traced process before the event is written; every
# operator (== != < <= > >= & on numbers, ~ globs on comm), && || ! and
# parentheses with the kernel's precedence, common_pid, CPU, comm.
# tests/progs/usdt.c's pair probe passes arg1 = i, arg2 = -1000 * i in
# round i (0..3); memory (not filtered) comes every round.
. "$(dirname "$0")/../lib/common.sh"

P=$(prog usdt gcc-pfe)
# one FILTER: the rounds whose pair event was recorded, on one line
rounds_of() {
	local d=f.dat
	record "$d" -e utest:pair -f "$1" -e utest:memory -- "$P" 4 ||
		{ fail "-f '$1': record exited $?: $(cat "$d.err")"; return; }
	[ -s "$d.err" ] && fail "-f '$1': record printed on stderr: $(cat "$d.err")"
	expect_eq "-f '$1': memory is not filtered" 4 "$(report "$d" | events | grep -c ' memory: ')"
	echo $(report "$d" | events | sed -nE 's/^.* pair: arg1=([0-9]+) .*$/\1/p')
}
while IFS='|' read -r want filter; do
	expect_eq "-f '$filter'" "$want" "$(rounds_of "$filter")"
done <<'EOF'
2|arg1 == 2
0 1 3|arg1 != 2
0 1|arg1 < 2
0 1 2|arg1 <= 2
3|arg1 > 2
2 3|arg1 >= 2
1 3|arg1 & 1
1 2 3|arg1 & 0x3
3|arg1 == 03
0 2 3|arg2 < -1000 || arg1 == 0
0 2|!(arg1 == 1) && arg1 < 3
1 3|arg1 == 1 || arg1 == 2 && arg2 == -3000 || arg1 == 3
1|(arg1 == 1 || arg1 == 2) && (arg2 == -1000 || arg2 == 0)
0 1 2 3|common_pid > 0 && CPU >= 0 && CPU < 1024
0 1 2 3|comm ~ "usdt*"
0 1 2 3|comm ~ "*gcc-pfe"
0 1 2 3|comm == "usdt.gcc-pfe"
|comm != "usdt.gcc-pfe"
|comm ~ "x*"
1|arg1 == 1 &&
EOF
finish
