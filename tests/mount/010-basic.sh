#!/bin/bash
# The tracefs mount's layout and the read formats of the simple files, with
# no traced process and then with one (SPEC §1-3): available_tracers,
# current_tracer, tracing_on, trace_clock, the empty lists, the trace header.
. "$(dirname "$0")/mount.lib"

# as users run it: `utrace mount DIR && cd DIR` (the mount is ready on return)
do_mount daemon
cd "$MNT" || exit 1

ls >"$TOP/ls.txt"
expect "top-level files" "$TOP/ls.txt" <<'EOF2'
README
available_events
available_filter_functions
available_tracers
buffer_size_kb
buffer_total_size_kb
current_tracer
dynamic_events
error_log
events
function_profile_enabled
instances
max_graph_depth
options
processes
saved_cmdlines
set_event
set_event_notrace_pid
set_event_pid
set_ftrace_filter
set_ftrace_notrace
set_ftrace_pid
set_graph_function
set_graph_notrace
snapshot
synthetic_events
trace
trace_clock
trace_marker
trace_options
trace_pipe
trace_stat
tracing_cpumask
tracing_on
tracing_thresh
EOF2
stat -c '%A %n' available_tracers current_tracer trace trace_pipe options . >"$TOP/modes.txt"
expect "modes" "$TOP/modes.txt" <<'EOF2'
-r--r----- available_tracers
-rw-r----- current_tracer
-rw-r----- trace
-r--r----- trace_pipe
drwxr-x--- options
drwx------ .
EOF2

for f in available_tracers current_tracer tracing_on trace_clock buffer_size_kb \
	buffer_total_size_kb max_graph_depth tracing_thresh function_profile_enabled \
	set_ftrace_filter set_ftrace_notrace set_graph_function set_graph_notrace set_ftrace_pid; do
	printf '%s: %s\n' "$f" "$(cat $f)"
done >"$TOP/reads.txt"
expect "simple reads" "$TOP/reads.txt" <<'EOF2'
available_tracers: function_graph function nop
current_tracer: nop
tracing_on: 1
trace_clock: [local] global counter uptime perf mono mono_raw boot x86-tsc
buffer_size_kb: 1408
buffer_total_size_kb: 0
max_graph_depth: 0
tracing_thresh: 0
function_profile_enabled: 0
set_ftrace_filter: #### all functions enabled ####
set_ftrace_notrace: #### no functions disabled ####
set_graph_function: #### all functions enabled ####
set_graph_notrace: #### no functions disabled ####
set_ftrace_pid: no pid
EOF2
# exact bytes: one line, newline-terminated
expect_eq "available_tracers bytes" 28 "$(wc -c <available_tracers)"
expect_eq "error_log empty" 0 "$(wc -c <error_log)"
expect_eq "saved_cmdlines empty" 0 "$(wc -c <saved_cmdlines)"
expect_eq "available_filter_functions empty" 0 "$(wc -c <available_filter_functions)"
check "README" grep -q 'tracefs' README

mask <trace >"$TOP/trace.txt"
expect "empty trace" "$TOP/trace.txt" <<'EOF2'
# tracer: nop
#
# entries-in-buffer/entries-written: 0/0   #P:<N>
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
EOF2

# options/: one file per flag, 0/1, the kernel's defaults; trace_options agrees
for f in print-parent sym-offset context-info overwrite func_stack_trace irq-info \
	annotate funcgraph-cpu sleep-time; do
	printf '%s=%s\n' "$f" "$(cat options/$f)"
done >"$TOP/opts.txt"
expect "option defaults" "$TOP/opts.txt" <<'EOF2'
print-parent=1
sym-offset=0
context-info=1
overwrite=1
func_stack_trace=0
irq-info=1
annotate=1
funcgraph-cpu=1
sleep-time=1
EOF2
check "no blk options" test ! -e options/blk_classic
expect_eq "trace_options: nop has no func_stack_trace" 0 "$(grep -c func_stack_trace trace_options)"
expect_eq "trace_options line" "nosym-offset" "$(grep sym-offset trace_options)"

# settings are kept (the template new processes start with)
echo function >current_tracer
echo 0 >tracing_on
echo 3 >max_graph_depth
echo global >trace_clock
printf '%s %s %s %s\n' "$(cat current_tracer)" "$(cat tracing_on)" "$(cat max_graph_depth)" \
	"$(cat trace_clock)" >"$TOP/set.txt"
expect "settings" "$TOP/set.txt" <<'EOF2'
function 0 3 local [global] counter uptime perf mono mono_raw boot x86-tsc
EOF2
expect_eq "trace_options: function has func_stack_trace" "nofunc_stack_trace" \
	"$(grep func_stack_trace trace_options)"
check "template written" grep -q '^tracer function$' "$UTRACE_DIR/config"

# a process started now picks the template up, and gets a directory
echo 1 >tracing_on
echo nop >current_tracer
echo local >trace_clock
start_server s1
P=$(pid_of s1)
expect_eq "processes/" "$P" "$(ls processes)"
expect_eq "process tracer" nop "$(cat processes/$P/current_tracer)"
expect_eq "processes/PID/README is the top level's" "$(cat README)" "$(cat processes/$P/README)"
check "processes/PID/options" test -f processes/$P/options/overwrite
mask <processes/$P/trace | head -n 3 >"$TOP/ptrace.txt"
expect "process trace header" "$TOP/ptrace.txt" <<'EOF2'
# tracer: nop
#
# entries-in-buffer/entries-written: 0/0   #P:<N>
EOF2
check "no such file" test ! -e nosuchfile
expect_eq "cat nosuchfile" ENOENT "$(werr cat nosuchfile)"
expect_eq "processes/1 absent" ENOENT "$(werr ls processes/1)"
alive
finish
