#!/bin/bash
# Options that would be accepted and do nothing are refused, saying why
# (issue 10 item 6): flags utrace lists but cannot honour, recording options
# given to a reader, output options given to start, another tracer's or the
# profiler's flags given to record, another tracer's flags given to report
# (the file's tracer), function_graph's flags (-g, --thresh...)
# or the function tracer's (--func-stack) with another tracer.  Exit 2 with one line on stderr, and
# nothing runs; the options that work are still accepted.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

P=$(prog status "${STYLES%% *}")
rm -rf run
"$UTRACE" record -o t.dat -- "$P" >/dev/null 2>&1 || fail "record"
while read -r word cmd args; do
	# shellcheck disable=SC2086
	case $cmd in
	record | profile) "$UTRACE" $cmd -o out.dat $args -- "$P" >o.out 2>o.err ;;
	report) "$UTRACE" report -i t.dat $args >o.out 2>o.err ;;
	*) "$UTRACE" $cmd $args >o.out 2>o.err ;;
	esac
	expect_eq "$cmd $args: status" 2 $?
	expect_eq "$cmd $args: stderr lines" 1 "$(wc -l <o.err)"
	grep -qF -- "$word" o.err || fail "$cmd $args: '$word' not in: $(cat o.err)"
	[ -s o.out ] && fail "$cmd $args: stdout: $(cat o.out)"
done <<'LIST'
supported: report -O funcgraph-args
supported: report -O function-fork
supported: report -O nofunction-trace
supported: report -O userstacktrace
function_graph report -O funcgraph-proc
recording report -O overwrite
recording report -O nomarkers
recording report -O func_stack_trace
recording show -O nosleep-time
supported: show -O stacktrace
supported: record -p function_graph -O funcgraph-args
supported: record -O nohash-ptr
function_graph record -p function -O funcgraph-proc
profile record -O nograph-time
trace_marker record -O nomarkers
profile profile -O sym-offset
graph-time stat -O sleep-time
graph-time stat -O sym-offset
output start -O sym-offset
output start -O noprint-parent
supported: start -O function-fork
function_graph record -p function -g main
function_graph record -p function --thresh 3
function_graph start -p nop --max-graph-depth 2
function_graph start --graph-notrace main
tracer's record -p function_graph --func-stack
function record -p function_graph -O func_stack_trace
tracer's profile --func-stack
LIST
# what works is still accepted
check "report -O func-no-repeats" "$UTRACE" report -i t.dat -O func-no-repeats -O sym-offset
check "record -p function_graph" "$UTRACE" record -o g.dat -p function_graph -- "$P"
check "report -O funcgraph-proc" "$UTRACE" report -i g.dat -O funcgraph-proc
check "record -O nooverwrite" "$UTRACE" record -o a.dat -O nooverwrite -O func_stack_trace -- "$P"
check "record -p function_graph -O funcgraph-tail" \
	"$UTRACE" record -o b.dat -p function_graph -O funcgraph-tail -- "$P"
check "profile -O nograph-time" "$UTRACE" profile -o p.txt -O nograph-time -O nosleep-time -- "$P"
server_start "${STYLES%% *}"
check "start -O nofunc_stack_trace" "$UTRACE" start -O func_stack_trace -O nofunc_stack_trace \
	-O nosleep-time -O overwrite
server_stop
no_crash o.err
finish
