#!/bin/bash
# Signal handlers in function_graph output are marked the way the kernel
# marks interrupts (SPEC §13): " N)   ==========> |" before a handler's
# entry, " N)   <========== |" after its return; nested handlers nest, a
# handler left by siglongjmp has no end mark, SIG_IGN runs nothing, plain
# and SA_SIGINFO handlers alike, and sigaction still reports the program's
# own handler.  funcgraph-irqs=0 hides handlers with their calls, as the
# kernel hides interrupts.  trace-cmd reads the marks as utrace's
# signal_enter / signal_exit events.  CPUs and durations are masked.
. "$(dirname "$0")/../lib/common.sh"

# The program runs on one CPU: a call whose entry and exit are on different
# CPUs ends "} /* name */", as the kernel's (the graph is followed per CPU)
PIN=()
command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && PIN=(taskset -c 0)

# CPU column and durations masked; the marks keep their columns
graph() { grep -v '^#' | sed -E 's/^ *[0-9]+\)/ N)/; s/[+!#*@$ ] [0-9]+\.[0-9]+ us +\|/ <DUR>  |/'; }

one() {
	local s=$1 d=m.$1.dat
	record "$d" -p function_graph -l 'sm_*' -l 'on_*' -- "${PIN[@]}" "$(prog sigmarks "$s")" ||
		fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<'EOF2'
usr1 2 usr2 1 int 1 old ok
EOF2
	report "$d" | graph >"$d.txt"
	expect "$s graph" "$d.txt" <<'EOF2'
 N)               |  sm_run() {
 N)   ==========> |
 N)               |    on_usr1() {
 N)  <DUR>  |      sm_work();
 N)  <DUR>  |    }
 N)   <========== |
 N)   ==========> |
 N)               |    on_usr2() {
 N)  <DUR>  |      sm_work();
 N)   ==========> |
 N)               |      on_usr1() {
 N)  <DUR>  |        sm_work();
 N)  <DUR>  |      }
 N)   <========== |
 N)  <DUR>  |    }
 N)   <========== |
 N)   ==========> |
 N)               |    on_int() {
 N)  <DUR>  |      sm_work();
 N)  <DUR>  |    sm_work();
 N)  <DUR>  |  }
EOF2
	report "$d" -O nofuncgraph-irqs | graph >"$d.noirq"
	expect "$s nofuncgraph-irqs" "$d.noirq" <<'EOF2'
 N)               |  sm_run() {
 N)  <DUR>  |    sm_work();
 N)  <DUR>  |  }
EOF2
	report "$d" -O nofuncgraph-duration -O nofuncgraph-cpu | grep -v '^#' | head -n 3 >"$d.nodur"
	expect "$s no duration column" "$d.nodur" <<'EOF2'
sm_run() {
==========>
  on_usr1() {
EOF2
	no_crash "$d.err" "$d.rerr"
	command -v trace-cmd >/dev/null || return
	trace-cmd report "$d" 2>"$d.tcerr" | grep -oE '(signal_(enter|exit): +sig=[0-9]+|funcgraph_entry:.*\|.*)$' |
		sed -E 's/funcgraph_entry: +([+!#*@$] +)?([0-9.]+ us)? +\| +/entry /; s/: +/: /' >"$d.tc"
	expect "$s trace-cmd" "$d.tc" <<'EOF2'
entry sm_run() {
signal_enter: sig=10
entry on_usr1() {
entry sm_work();
signal_exit: sig=10
signal_enter: sig=12
entry on_usr2() {
entry sm_work();
signal_enter: sig=10
entry on_usr1() {
entry sm_work();
signal_exit: sig=10
signal_exit: sig=12
signal_enter: sig=2
entry on_int() {
entry sm_work();
entry sm_work();
EOF2
	expect "$s trace-cmd stderr" "$d.tcerr" </dev/null
}

for_styles one
finish
