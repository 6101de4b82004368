#!/bin/bash
# Stress: 4 threads run traced code while the main thread switches tracing
# off and on 1000 times (utrace_set_tracing).  The program's output is the
# same traced and untraced, it does not crash or hang, every event line is
# well formed with a known function and its real caller.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 P st
	P=$(prog stress "$s")
	"$P" >plain.out 2>plain.err
	st=$?
	expect_eq "$s: untraced exit status" 0 "$st"
	for round in 1 2; do
		record st.dat -- "$P" || fail "$s round $round: record exited $?: $(head -n 3 st.dat.err)"
		cmp -s plain.out st.dat.out ||
			fail "$s round $round: output differs traced/untraced: $(diff plain.out st.dat.out | head -n 4)"
		grep -v -i 'lost' st.dat.err >e.txt
		[ -s e.txt ] && fail "$s round $round: record's stderr: $(head -n 3 e.txt)"
		report st.dat >r.txt || fail "$s round $round: report exited $?: $(head -n 3 st.dat.rerr)"
		well_formed <r.txt >bad.txt
		[ -s bad.txt ] && fail "$s round $round: malformed lines: $(head -n 3 bad.txt)"
		funcs <r.txt | sort -u >f.txt
		grep -vxE 'main <-\[libc\]|st_thread <-\[libc\]|st_step <-st_thread|st_leaf <-st_step' f.txt >bad.txt
		[ -s bad.txt ] && fail "$s round $round: unexpected function/parent: $(head -n 3 bad.txt)"
		grep -q 'st_leaf <-st_step' f.txt || fail "$s round $round: no st_leaf event"
		# at most 5 threads, one process
		expect_eq "$s round $round: one process" 1 "$(report st.dat -O record-tgid | events |
			sed -E 's/^.*\( *([0-9]+)\).*/\1/' | sort -u | wc -l)"
		no_crash st.dat.err st.dat.rerr
	done
}

for_styles one
finish
