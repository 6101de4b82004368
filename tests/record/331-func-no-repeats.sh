#!/bin/bash
# func-no-repeats (SPEC §12; issue 10 item 6): record -O func-no-repeats
# folds as the kernel's function tracer does when recording -- the file
# holds a func_repeats event, which report and trace-cmd report print --
# and report -O func-no-repeats of a file recorded without it prints the
# same lines (folded when printing).
. "$(dirname "$0")/../lib/common.sh"

fold_ts() { sed -E 's/last_ts: +[0-9]+\.[0-9]{6}\)/last_ts: <TS>)/'; }

one() {
	local s=$1
	printf 'run 3\nlib 1\nquit\n' >in.txt
	record r.dat -p function -l handle_request -l tlib_mul -O func-no-repeats \
		-- "$(prog server "$s")" <in.txt || fail "$s record: $(cat r.dat.err)"
	report r.dat | mask | fold_ts >r.txt
	sed -n '3p;13,$p' r.txt >r2.txt
	expect "$s recorded folded" r2.txt <<'EOF'
# entries-in-buffer/entries-written: 3/3   #P:<N>
server-<PID> [<CPU>] ..... <TS>: handle_request <-main
server-<PID> [<CPU>] ..... <TS>: handle_request <-main (repeats: 2, last_ts: <TS>)
server-<PID> [<CPU>] ..... <TS>: tlib_mul <-main
EOF
	if command -v trace-cmd >/dev/null; then
		trace-cmd report r.dat 2>/dev/null | grep -c 'func_repeats: .*handle_request.*count: 2' >n.txt
		expect "$s trace-cmd report sees func_repeats" n.txt <<'EOF'
1
EOF
	fi
	record p.dat -p function -l handle_request -l tlib_mul -- "$(prog server "$s")" <in.txt ||
		fail "$s record: $(cat p.dat.err)"
	expect_eq "$s not folded" 4 "$(report p.dat | events | wc -l)"
	report p.dat -O func-no-repeats | events | mask | fold_ts >p.txt
	sed -n '2,$p' r2.txt >r3.txt
	expect "$s folded when printing" p.txt <r3.txt
	no_crash r.dat.err p.dat.err r.dat.rerr p.dat.rerr
}

for_styles one
finish
