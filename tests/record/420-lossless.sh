#!/bin/bash
# Lossless record (the default): with a tiny buffer and a drainer slowed on
# purpose (UTRACE_TEST_DRAIN_DELAY_US), full buffers wait for the recorder,
# so the trace holds every call, function and function_graph, no loss said.
# With -O drop the kernel's drop-and-count stays: events are lost, counted
# exactly, and stderr says how many.  Threads: each waits for its own ring.
. "$(dirname "$0")/../lib/common.sh"

export UTRACE_TEST_DRAIN_DELAY_US=2000

# Calls per function in a function or function_graph report on stdin.
calls() {
	grep -v '^#' | grep -oE '[a-z_]+\(\)( \{|;)|: [a-z_]+ <-' |
		sed -E 's/^: //; s/[ (].*//' | sort | uniq -c | awk '{print $2, $1}'
}

one() {
	local s=$1 P e l tracer
	P=$(prog single "$s")
	# main 1 + s_top 1 + s_middle 3000 + s_leaf 6001
	for tracer in function function_graph; do
		record w.dat -p $tracer -b 4 -- "$P" 3000 || fail "$s $tracer: record exited $?"
		expect "$s $tracer: stdout" w.dat.out <<'EOF2'
single 9003001
EOF2
		grep 'lost' w.dat.err && fail "$s $tracer: losses said: $(cat w.dat.err)"
		report w.dat | calls >c.txt
		expect "$s $tracer: every call" c.txt <<'EOF2'
main 1
s_leaf 6001
s_middle 3000
s_top 1
EOF2
		report w.dat | sed -n 3p | sed -E 's/#P:[0-9]+/#P:N/' >h.txt
		if [ $tracer = function ]; then
			expect "$s $tracer: entries" h.txt <<'EOF2'
# entries-in-buffer/entries-written: 9003/9003   #P:N
EOF2
		fi
		no_crash w.dat.err w.dat.rerr
	done
	# four threads, each its own full buffer: every call of every thread
	record t.dat -b 4 -- "$(prog threads "$s")" 4 2000 || fail "$s threads: record exited $?"
	grep 'lost' t.dat.err && fail "$s threads: losses said: $(cat t.dat.err)"
	report t.dat | calls >c.txt
	expect "$s threads 4x2000" c.txt <<'EOF2'
main 1
t_a 8000
t_b 16000
t_main_done 1
t_thread 4
t_work 8000
EOF2
	# -O drop: the kernel's semantics, losses counted and said
	record d.dat -O drop -b 4 -- "$P" 3000 || fail "$s drop: record exited $?"
	grep -qE '^utrace: [0-9]+ events lost' d.dat.err || fail "$s drop: no loss said: $(cat d.dat.err)"
	e=$(report d.dat | sed -n 3p | sed -E 's/.*: ([0-9]+)\/.*/\1/')
	l=$(sed -nE 's/^utrace: ([0-9]+) events lost.*/\1/p' d.dat.err)
	expect_eq "$s drop: in buffer + lost" 9003 $((e + l))
}

for_styles one
finish
