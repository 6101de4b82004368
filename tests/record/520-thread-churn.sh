#!/bin/bash
# Thread churn (issue 17): a program that makes 10,000 short threads one
# after another (never more than two alive) records every call exactly --
# thread slots are recycled once record has taken their data, so there is no
# limit on the threads of a process's life (docs/shm-abi.md, Recycling) --
# with every style under function, and under function_graph.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1
	record c.dat -p function -- "$(prog threadchurn "$s")" 10000 10 ||
		fail "$s: record exited $?"
	expect "$s stdout" c.dat.out <<'EOF'
threadchurn 10000 threads total 1100000
EOF
	report c.dat | count_funcs >c.txt
	expect "$s function counts" c.txt <<'EOF'
c_done 1
c_leaf 100000
c_thread 10000
c_work 100000
main 1
EOF
	# nothing lost, no thread untraced
	grep -E 'lost|not traced' c.dat.err && fail "$s: record warned"
	no_crash c.dat.err c.dat.rerr
}

for_styles one

record g.dat -p function_graph -- "$(prog threadchurn gcc-pfe)" 10000 10 || fail "graph: record exited $?"
report g.dat >g.txt
# a leaf prints "c_leaf();", or "c_leaf() {" then "}" if an event came late (a loaded machine)
for f in 'c_thread() {' 'c_work() {' 'c_leaf()'; do
	printf '%s %s\n' "$f" "$(grep -cF "$f" g.txt)"
done >c.txt
expect "graph counts" c.txt <<'EOF'
c_thread() { 10000
c_work() { 100000
c_leaf() 100000
EOF
grep -E 'lost|not traced' g.dat.err && fail "graph: record warned"
no_crash g.dat.err g.dat.rerr
finish
