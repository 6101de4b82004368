#!/bin/bash
# Single thread: the exact function trace (header, function and parent names,
# order) for every instrumentation style, and the per-function counts.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=single.$1.dat
	record "$d" -- "$(prog single "$s")" || fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<'EOF'
single 13
EOF
	[ -s "$d.err" ] && fail "$s: record printed on stderr: $(cat "$d.err")"
	report "$d" | mask >"$d.txt" || fail "$s: report exited $?: $(cat "$d.rerr")"
	expect "$s report" "$d.txt" <<'EOF'
# tracer: function
#
# entries-in-buffer/entries-written: 12/12   #P:<N>
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
single-<PID> [<CPU>] ..... <TS>: main <-[libc]
single-<PID> [<CPU>] ..... <TS>: s_top <-main
single-<PID> [<CPU>] ..... <TS>: s_middle <-s_top
single-<PID> [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] ..... <TS>: s_middle <-s_top
single-<PID> [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] ..... <TS>: s_middle <-s_top
single-<PID> [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] ..... <TS>: s_leaf <-main
EOF
	# The task is the program (comm = its name, truncated to 15 like the
	# kernel's) and the pid is the one process's.
	local comm
	comm=$(basename "$(prog single "$s")" | cut -c1-15)
	report "$d" | events | awk '{print $1}' | sort -u >"$d.tasks"
	[ "$(wc -l <"$d.tasks")" = 1 ] || fail "$s: more than one task: $(cat "$d.tasks")"
	case $(cat "$d.tasks") in
	"$comm"-[0-9]*) ;;
	*) fail "$s: task '$(cat "$d.tasks")' is not $comm-PID" ;;
	esac
	# Larger N: exact counts (s_middle N, s_leaf 2N+1).
	record "$d" -- "$(prog single "$s")" 200 || fail "$s: record 200 exited $?"
	report "$d" | count_funcs >"$d.cnt"
	expect "$s counts N=200" "$d.cnt" <<'EOF'
main 1
s_leaf 401
s_middle 200
s_top 1
EOF
	no_crash "$d.err" "$d.rerr"
}

for_styles one
finish
