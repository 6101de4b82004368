#!/bin/bash
# record follows a child however it is started: posix_spawn (a CLONE_VFORK
# child that execs inside libc), posix_spawn/posix_spawnp with an
# environment of the program's own (no LD_PRELOAD, no UTRACE_*), system(),
# vfork + execve with an empty environment, execle, `env -i`, and an exec
# after the program removed LD_PRELOAD and UTRACE_* from its environment,
# a child the program does not wait for (record waits for it: it is the
# subreaper).  Both programs' functions are traced, each under its own
# process.
. "$(dirname "$0")/../lib/common.sh"

MODES="spawn spawn-env spawnp-env system vfork-env execle env-i orphan exec-cleared"

one() {
	local s=$1 m d=c.dat want_pids
	for m in $MODES; do
		record "$d" -- "$(prog follow "$s")" "$m" || fail "$s $m: record exited $?: $(cat "$d.err")"
		if [ "$m" = exec-cleared ]; then
			expect "$s $m: stdout" "$d.out" <<<"single 13"
		else # an orphan may print last
			sort "$d.out" >o.txt
			printf '%s: 0\nsingle 13\n' "$m" | sort | expect "$s $m: stdout" o.txt
		fi
		[ -s "$d.err" ] && fail "$s $m: messages: $(cat "$d.err")"
		report "$d" >r.txt || fail "$s $m: report exited $?"
		count_funcs <r.txt >n.txt
		if [ "$m" = exec-cleared ]; then
			# single replaced the program: no fl_after, clear_env ran
			expect "$s $m: functions" n.txt <<'EOF'
clear_env 1
find_single 1
fl_before 1
main 2
run 1
s_leaf 7
s_middle 3
s_top 1
EOF
			want_pids=1
		else
			expect "$s $m: functions" n.txt <<'EOF'
find_single 1
fl_after 1
fl_before 1
main 2
run 1
s_leaf 7
s_middle 3
s_top 1
EOF
			want_pids=2
		fi
		# one process for each program (the same one after an exec)
		events <r.txt | sed -E 's/^ *[^ ]*-([0-9]+) .*/\1/' | sort -u | wc -l >p.txt
		expect_eq "$s $m: processes" "$want_pids" "$(cat p.txt)"
		no_crash "$d.err" "$d.rerr"
	done
	# function_graph: the spawning parent's shadow stack survives the
	# vfork child, and the child's graph is its own.
	record g.dat -p function_graph -- "$(prog follow "$s")" spawn-env ||
		fail "$s graph: record exited $?: $(cat g.dat.err)"
	report g.dat | events | grep -oE '(s_leaf|fl_before|fl_after)\(\);' | sort | uniq -c |
		awk '{print $2, $1}' >g.txt
	expect "$s graph: leaves of both" g.txt <<'EOF'
fl_after(); 1
fl_before(); 1
s_leaf(); 7
EOF
	no_crash g.dat.err g.dat.rerr
}

for_styles one
finish
