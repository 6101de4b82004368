#!/bin/bash
# utrace profile: the kernel's trace_stat/function table; hit counts equal
# the true call counts; graph-time/sleep-time options; per-thread tables.
. "$(dirname "$0")/../lib/common.sh"

# "name hits" of a table (its first block: all threads merged)
hits() { awk '/^  -/{n++; next} n==1 && NF {print $1, $2} /^$/{if (n) exit}' "$1" | sort; }

one() {
	local s=$1 P
	P=$(prog single "$s")
	"$UTRACE" profile -o prof.txt -- "$P" >out 2>err
	expect_eq "$s profile: status" 0 $?
	expect "$s profile: program output" out <<'EOF'
single 13
EOF
	head -2 prof.txt >h.txt
	expect "$s profile: header" h.txt <<'EOF'
  Function                               Hit    Time            Avg             s^2
  --------                               ---    ----            ---             ---
EOF
	hits prof.txt >hits.txt
	expect "$s profile: hits" hits.txt <<'EOF'
main 1
s_leaf 7
s_middle 3
s_top 1
EOF
	# sorted by Time, descending: main includes everything
	awk 'NR==3 {print $1}' prof.txt >top.txt
	expect "$s profile: main first" top.txt <<'EOF'
main
EOF
	# self time: main no longer first (s_top's loop is its own)
	"$UTRACE" profile -O nograph-time -O nosleep-time -o prof2.txt -- "$P" 30 >out 2>err
	expect_eq "$s profile nograph-time: status" 0 $?
	hits prof2.txt >hits.txt
	expect "$s profile nograph-time nosleep-time: hits" hits.txt <<'EOF'
main 1
s_leaf 61
s_middle 30
s_top 1
EOF
	# threads: merged counts, and one table per thread
	P=$(prog threads "$s")
	"$UTRACE" profile -o prof3.txt -- "$P" >out 2>err
	hits prof3.txt >hits.txt
	grep -c '^==> thread ' prof3.txt >n.txt
	expect "$s profile threads: tables" n.txt <<'EOF'
5
EOF
	grep -qE '^  t_work +200 ' prof3.txt || fail "$s profile threads: t_work 200 hits: $(grep t_work prof3.txt | head -1)"
	# filters apply; bad input
	"$UTRACE" profile -l 's_leaf' -o prof4.txt -- "$(prog single "$s")" >out 2>err
	hits prof4.txt >hits.txt
	expect "$s profile -l s_leaf" hits.txt <<'EOF'
s_leaf 7
EOF
	"$UTRACE" profile -p function_graph -- "$P" >out 2>err
	expect_eq "$s profile -p: status" 2 $?
}

for_styles one
finish
