#!/bin/bash
# Options the mount lists (as the kernel does) but utrace cannot honour
# refuse to change: EINVAL on options/NAME and trace_options, and the value
# stays; writing their current value is accepted, as the kernel accepts
# rewriting any flag (issue 10 item 6).  Working options still change.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo function_graph >current_tracer
for d in . processes/$P; do
	while read -r name to; do
		from=$(cat $d/options/$name)
		expect_eq "$d/options/$name = $to" EINVAL "$(w $d/options/$name "$to")"
		expect_eq "$d/options/$name unchanged" "$from" "$(cat $d/options/$name)"
		expect_eq "$d/options/$name = $from" OK "$(w $d/options/$name "$from")"
		word=$name
		[ "$to" = 0 ] && word=no$name
		expect_eq "$d/trace_options $word" EINVAL "$(w $d/trace_options "$word")"
	done <<'LIST'
funcgraph-args 1
function-fork 1
function-trace 0
stacktrace 1
userstacktrace 1
sym-userobj 1
record-cmd 0
disable_on_free 1
hash-ptr 0
block 1
trace_printk 0
copy_trace_marker 0
trace_printk_dest 0
LIST
done
expect_eq "funcgraph-proc still works" OK "$(w options/funcgraph-proc 1)"
expect_eq "funcgraph-proc set" 1 "$(cat options/funcgraph-proc)"
expect_eq "trace_options nofuncgraph-proc" OK "$(w trace_options nofuncgraph-proc)"
expect_eq "funcgraph-proc cleared" 0 "$(cat options/funcgraph-proc)"
alive
finish
