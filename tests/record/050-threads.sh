#!/bin/bash
# Threads: 4 threads each call known functions a known number of times; the
# counts per function per thread are exact, every thread has its own tid,
# all share the process's tgid.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=t.dat
	record "$d" -- "$(prog threads "$s")" 4 50 || fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<'EOF'
threads total 25100
EOF
	report "$d" >r.txt || fail "$s: report exited $?"
	task_counts <r.txt >c.txt
	expect "$s counts per thread" c.txt <<'EOF'
1 main=1 t_main_done=1
4 t_a=50 t_b=100 t_thread=1 t_work=50
EOF
	well_formed <r.txt >bad.txt
	[ -s bad.txt ] && fail "$s: malformed lines: $(head -n 3 bad.txt)"
	# Parents: t_thread is called from libc (start_thread), t_work from t_thread.
	funcs <r.txt | sort -u >p.txt
	expect "$s parents" p.txt <<'EOF'
main <-[libc]
t_a <-t_work
t_b <-t_work
t_main_done <-main
t_thread <-[libc]
t_work <-t_thread
EOF
	# record-tgid: one tgid for the 5 threads, equal to main's pid.
	report "$d" -O record-tgid | events |
		sed -E 's/^ *[^ ]*-([0-9]+) +\( *([0-9]+)\).*: ([^ ]+) .*/\1 \2 \3/' >tg.txt
	local tgids tids mainpid
	tgids=$(awk '{print $2}' tg.txt | sort -u | wc -l)
	tids=$(awk '{print $1}' tg.txt | sort -u | wc -l)
	mainpid=$(awk '$3 == "main" {print $1}' tg.txt)
	expect_eq "$s: number of tgids" 1 "$tgids"
	expect_eq "$s: number of tids" 5 "$tids"
	expect_eq "$s: tgid is main's pid" "$mainpid" "$(awk 'NR == 1 {print $2}' tg.txt)"
	# timestamps never go backwards in the merged output
	events <r.txt | sed -E 's/.* ([0-9]+\.[0-9]{6}): .*/\1/' | sort -c -n 2>/dev/null ||
		fail "$s: timestamps not in order"
	no_crash "$d.err" "$d.rerr"
}

for_styles one
# More threads than CPUs, more work: still exact (gcc-pfe only, for time).
s=${STYLES%% *}
record m.dat -- "$(prog threads "$s")" 16 2000 || fail "16x2000: record exited $?"
report m.dat | task_counts >c.txt
expect "$s 16 threads x 2000" c.txt <<'EOF'
1 main=1 t_main_done=1
16 t_a=2000 t_b=4000 t_thread=1 t_work=2000
EOF
grep -i lost m.dat.err && fail "events lost"
finish
