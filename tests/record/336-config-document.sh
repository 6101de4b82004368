#!/bin/bash
# record hands the configuration over as the config document `utrace start`
# writes (issue 11, item 3): its private run-time directory's "config",
# 0600, carrying every option (and "lenient 1", "follow 1", "lossless 1" with
# the recorder's pid, "lossless_pid", masked here as PID); the traced
# program's environment gets UTRACE_DIR (and the recorder's clock) from
# record, no settings, and so does a program it runs with an environment of
# its own (env -u: the runtime puts back only what record hands over).  UTRACE_* settings the user left in the environment
# (UTRACE_TRACER, UTRACE_FILTER, ... that the runtime once read) do nothing.
. "$(dirname "$0")/../lib/common.sh"

export UTRACE_TRACER=function_graph UTRACE_FILTER=main UTRACE_NOTRACE=s_leaf \
	UTRACE_FUNC_STACK=1 UTRACE_MAX_GRAPH_DEPTH=1 UTRACE_GRAPH_FILTER=s_top \
	UTRACE_PROFILE=1 UTRACE_BUF_KB=8 UTRACE_LENIENT=0 UTRACE_OVERWRITE=1

# The document and the environment, as the traced program sees them.
"$UTRACE" record -o d.dat -p function_graph -l 's_*' -l '!s_noise' -n s_leaf -g main \
	--graph-notrace s_junk --max-graph-depth 3 --thresh 5 -b 64 -C mono -- \
	env -u UTRACE_TRACER -u UTRACE_FILTER -u UTRACE_NOTRACE -u UTRACE_FUNC_STACK \
	-u UTRACE_MAX_GRAPH_DEPTH -u UTRACE_GRAPH_FILTER -u UTRACE_PROFILE -u UTRACE_BUF_KB \
	-u UTRACE_LENIENT -u UTRACE_OVERWRITE \
	sh -c 'stat -c "%a %F" "$UTRACE_DIR/config"; cat "$UTRACE_DIR/config";
		env | sed -n "s/^\(UTRACE_[A-Z_]*\)=.*/\1/p" | sort' >doc.raw 2>doc.err
expect_eq "record status" 0 $?
sed -E 's/^lossless_pid [0-9]+$/lossless_pid PID/' doc.raw >doc.txt
no_crash doc.err
expect "the document and the environment" doc.txt <<'EOF'
600 regular file
tracer function_graph
clock mono
buffer_size_kb 64
overwrite 0
tracing_on 1
func_stack_trace 0
function_profile_enabled 0
sleep_time 1
lenient 1
follow 1
lossless 1
lossless_pid PID
max_graph_depth 3
tracing_thresh 5
filter s_* !s_noise
notrace s_leaf
graph_function main
graph_notrace s_junk
UTRACE_DIR
UTRACE_TSC_CONV
EOF

# The stray settings change nothing: what -p/-l say is what is traced.
one() {
	local s=$1
	record f.dat -p function -l 's_*' -- "$(prog single "$s")" ||
		fail "$s: record exited $?: $(cat f.dat.err)"
	no_crash f.dat.err
	report f.dat | count_funcs >c.txt
	expect "$s: -p function -l s_* under stray UTRACE_* settings" c.txt <<'EOF'
s_leaf 7
s_middle 3
s_top 1
EOF
	report f.dat | grep -c '<stack trace>' >st.txt
	expect "$s: no stack traces" st.txt <<'EOF'
0
EOF
}
for_styles one

# The profiler's settings travel the same way.
"$UTRACE" profile -o prof.tab -O nosleep-time -- sh -c 'grep -E "^(tracer|function_profile_enabled|sleep_time) " "$UTRACE_DIR/config"' >prof.txt 2>prof.err
no_crash prof.err
expect "profile: the document" prof.txt <<'EOF'
tracer nop
function_profile_enabled 1
sleep_time 0
EOF

# A program preloading the runtime by hand, the stray settings still in its
# environment: it takes its run-time directory's document (none here: nop),
# as its session's "config" says (read while it runs: a process that wrote
# nothing removes its session when it exits).
mkdir -m 0700 rt
mkfifo h.in
UTRACE_DIR=$PWD/rt LD_PRELOAD="$UT_BUILD/libutrace.so" "$(prog server "${STYLES%% *}")" \
	<h.in >h.out 2>h.err &
exec 8>h.in
echo ping >&8
for ((i = 0; i < 1000; i++)); do
	[ -s h.out ] && break
	sleep 0.01
done
sed -n '1p;/^filter/p;/^follow/p' rt/*/config >h.txt
echo quit >&8
exec 8>&-
wait $!
expect_eq "preloaded by hand: status, stderr" "0 " "$? $(cat h.err)"
expect "preloaded by hand: the session's configuration" h.txt <<'EOF'
tracer nop
EOF
expect_eq "preloaded by hand: no session left (nothing written)" 0 "$(ls rt | grep -c '^[0-9]')"
finish
