#!/bin/bash
# Exactness: the number of events of each function equals its known number
# of calls (single, threads, recurse, shlib), for every style.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1
	record e.dat -- "$(prog single "$s")" 50 || fail "$s single: record exited $?"
	report e.dat | count_funcs >c.txt
	expect "$s single 50" c.txt <<'EOF'
main 1
s_leaf 101
s_middle 50
s_top 1
EOF
	record e.dat -- "$(prog recurse "$s")" || fail "$s recurse: record exited $?"
	expect "$s recurse stdout" e.dat.out <<'EOF'
recurse 55 20
EOF
	report e.dat | count_funcs >c.txt
	expect "$s recurse" c.txt <<'EOF'
main 1
r_depth 21
r_fib 177
EOF
	# r_depth's parents: main once, itself 20 times
	report e.dat | funcs | grep '^r_depth' | sort | uniq -c | awk '{print $2, $3, $1}' >c.txt
	expect "$s recurse parents" c.txt <<'EOF'
r_depth <-main 1
r_depth <-r_depth 20
EOF
	record e.dat -- "$(prog threads "$s")" 4 300 || fail "$s threads: record exited $?"
	report e.dat | count_funcs >c.txt
	expect "$s threads 4x300" c.txt <<'EOF'
main 1
t_a 1200
t_b 2400
t_main_done 1
t_thread 4
t_work 1200
EOF
	record e.dat -- "$(prog shlib "$s")" || fail "$s shlib: record exited $?"
	report e.dat | count_funcs >c.txt
	expect "$s shlib" c.txt <<'EOF'
main 1
sh_local 1
tlib_add 5
tlib_mul 1
EOF
	no_crash e.dat.err e.dat.rerr
}

for_styles one
finish
