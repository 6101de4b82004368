#!/bin/bash
# The top level's README (item: tools read it to learn what a tracefs
# accepts; ftracetest greps it for "accepts: .* glob-matching-pattern" and
# for the trigger names): the exact text, every top-level file and clock
# named in it, and nothing named that the mount lacks.
. "$(dirname "$0")/mount.lib"

do_mount daemon
cd "$MNT" || exit 1

expect "README" README <<'EOF2'
tracing mini-HOWTO (utrace: the tracefs of your traced processes):

# echo 0 > tracing_on : quick way to disable tracing
# echo 1 > tracing_on : quick way to re-enable tracing

 This directory acts on every process of yours that runs with
 libutrace.so, and on those started later; processes/PID/ has the same
 files for one process, kept after it exits.

 Important files:
  trace			- The static contents of the buffer
			  To clear the buffer write into this file: echo > trace
  trace_pipe		- A consuming read to see the contents of the buffer
  tracing_on		- 1: events are recorded, 0: they are not
  tracing_cpumask	- Limit which CPUs to trace
  current_tracer	- function and latency tracers
  available_tracers	- list of configured tracers for current_tracer
  error_log	- error log for failed commands (that support it)
  buffer_size_kb	- view and modify size of per thread buffer
  buffer_total_size_kb  - view total size of all thread buffers

  trace_clock		- change the clock used to order events
       local:   TSC scaled to nanoseconds (the kernel's sched_clock)
      global:   CLOCK_MONOTONIC
     counter:   Not a clock, but just an increment (per process)
      uptime:   Jiffy counter (HZ=100) from CLOCK_MONOTONIC
        perf:   CLOCK_MONOTONIC
        mono:   CLOCK_MONOTONIC
    mono_raw:   CLOCK_MONOTONIC_RAW
        boot:   CLOCK_BOOTTIME
     x86-tsc:   TSC cycle counter

  trace_marker		- Writes into this file writes into the trace buffer
  instances		- Make sub-buffers with: mkdir instances/foo
			  Remove sub-buffer with rmdir
  trace_options		- Set format or modify how tracing happens
			  Disable an option by prefixing 'no' to the
			  option name
  options/		- one file per option: 0 or 1
  saved_cmdlines	- pid and command of each traced thread
  snapshot		- Like 'trace' but shows the content of the static
			  snapshot buffer. Read the contents for more
			  information

  available_events	- list of events that can be enabled: the USDT
			  probes of the traced processes, as provider:name
  set_event		- Enables events by name written into it
			  provider:name, provider:*, name, !name to disable
  set_event_pid	- Write pid(s) to only enable events for those pids
			  (a process id: all its threads; options/event-fork:
			  its children too)
  set_event_notrace_pid	- Write pid(s) to not enable events for those pids
			  (as set_event_pid; these win over it)
  events/		- one directory per provider, one per event below it:
      enable		- 0/1: every event (events/), a provider's, one event's
      format, id	- an event's fields and id (events/<provider>/<event>/)
      filter		- If set, only events passing filter are traced
      trigger		- If set, a command to perform when event is hit
	    Format: <trigger>[:count][if <filter>]
	   trigger: traceon, traceoff
	            enable_event:<system>:<event>
	            disable_event:<system>:<event>
		    stacktrace
		    snapshot
		    hist (see below)
      hist trigger	- If set, event hits are aggregated into a hash table
	    Format: hist:keys=<field1[,field2,...]>
	            [:<var1>=<field|var_ref|numeric_literal>[,<var2>=...]]
	            [:values=<field1[,field2,...]>]
	            [:sort=<field1[,field2,...]>]
	            [:size=#entries]
	            [:pause][:continue][:clear]
	            [:<handler>.<action>]
	            [if <filter>]
	    hist trigger arithmetic expressions support addition(+), subtraction(-),
	    multiplication(*) and division(/) operators. An operand can be either a
	    variable reference, field or numeric literal.
	    The available handlers are:
	        onmatch(matching.event)  - invoke on addition or update
	        onmax(var)               - invoke if var exceeds current max
	        onchange(var)            - invoke action if var changes
	    The available actions are:
	        trace(<synthetic_event>,param list)  - generate synthetic event
	        save(field,...)                      - save current event fields
	        snapshot()                           - snapshot the trace buffer
  synthetic_events	- Create/append/remove/show synthetic events
	  Write into this file to define/undefine new synthetic events.
	     example: echo 'myevent u64 lat; char name[]' >> synthetic_events
	  (one list: processes/PID/synthetic_events shows and changes it)
  dynamic_events		- Create/append/remove/show the generic dynamic events
	  accepts: s:[synthetic/]<event> <field> [<field>] (synthetic events)
	           -:[synthetic/]<event>

  available_filter_functions - list of functions that can be filtered on
  set_ftrace_filter	- echo function name in here to only trace these
			  functions
	     accepts: func_full_name or glob-matching-pattern
	     modules: Can select a group via module
	      Format: :mod:<module-name>
	     example: echo :mod:libz > set_ftrace_filter
	    triggers: a command to perform when function is hit
	      Format: <function>:<trigger>[:count]
	     trigger: traceon, traceoff
		      stacktrace
		      dump
		      cpudump
	     example: echo parse_input:traceoff > set_ftrace_filter
	              echo parse_input:traceoff:3 > set_ftrace_filter
	     To remove trigger without count:
	       echo '!<function>:<trigger> > set_ftrace_filter
	     To remove trigger with a count:
	       echo '!<function>:<trigger>:0 > set_ftrace_filter
  set_ftrace_notrace	- echo function name in here to never trace.
	    accepts: func_full_name or glob-matching-pattern
	    modules: Can select a group via module command :mod:
	    Does not accept triggers
  set_ftrace_pid	- Write pid(s) to only function trace those pids
		    (function, function_graph)
  set_graph_function	- Trace the nested calls of a function (function_graph)
  set_graph_notrace	- Do not trace the nested calls of a function (function_graph)
  max_graph_depth	- Trace a limited depth of nested calls (0 is unlimited)
  tracing_thresh	- function_graph: only calls lasting this many us or more

  function_profile_enabled - 1: count the calls of each function
  trace_stat/function	- the counts: Function, Hit, Time, Avg, s^2
			  (also as function0)

  processes/PID/	- one traced process: the files above for it alone
  processes/PID/per_thread/TID/ - one thread: trace, trace_pipe, stats,
			  buffer_size_kb
EOF2
expect_eq "mode" "-r--r----- 1" "$(stat -c '%A %h' README)"

# every file and directory of the top level has its line
for f in *; do
	[ "$f" = README ] && continue
	grep -qE "^  $f(/| |	|$)" README || fail "README does not name $f"
done
# every clock has its line, and every tracer is one it names
for c in $(tr -d '[]' <trace_clock); do
	grep -qE "^ +$c:   " README || fail "README does not describe the clock $c"
done
# what it names exists: each file at the start of a line, each trigger works
for f in $(sed -nE 's/^  ([a-z_]+)(\/| |	).*/\1/p' README | sort -u); do
	[ -e "$f" ] || fail "README names $f, which the mount lacks"
done
start_server s1
for t in $(sed -nE 's/^\t     trigger: (.*)/\1/p; s/^\t\t      ([a-z_]+)$/\1/p' README | tr -d ,); do
	expect_eq "trigger $t accepted" OK "$(w set_ftrace_filter "parse_noise:$t:1")"
done
expect_eq "full glob, as README says" OK "$(w set_ftrace_filter 'p[a]rse_h?ader')"
# a truncating write keeps the commands (the kernel's rule): the functions are the first line
expect_eq "full glob matched" parse_header "$(grep -v : set_ftrace_filter | cut -d' ' -f1)"
expect_eq "notrace full glob" OK "$(w set_ftrace_notrace 'p[a]rse_n?ise')"
expect_eq "notrace full glob matched" parse_noise "$(cat set_ftrace_notrace)"
alive
finish
