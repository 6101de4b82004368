#!/bin/bash
# Function commands with a count: the count set_ftrace_filter lists goes
# down as the command acts ("f:traceoff:count=2" -> "count=1"), keeps going
# down across other configuration changes (it is not reset), and the
# top-level tracing_on reads 0 once a traceoff fired in the process
# (SPEC §12; issue 10 item 7).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo parse_request >set_ftrace_filter
echo 'parse_noise:traceoff:2' >>set_ftrace_filter
echo 'parse_header:stacktrace:3' >>set_ftrace_filter
echo 'handle_request:traceon' >>set_ftrace_filter
echo function >current_tracer
cat set_ftrace_filter >"$TOP/l.txt"
expect "before" "$TOP/l.txt" <<'EOF2'
parse_request
parse_noise:traceoff:count=2
parse_header:stacktrace:count=3
handle_request:traceon:unlimited
EOF2
# one request: traceon (already on: does not count), two parse_header
# stack traces, then the traceoff
run_req s1 1
for d in . processes/$P; do
	cat $d/set_ftrace_filter >"$TOP/l.txt"
	expect "$d: after one request" "$TOP/l.txt" <<'EOF2'
parse_request
parse_noise:traceoff:count=1
parse_header:stacktrace:count=1
handle_request:traceon:unlimited
EOF2
done
expect_eq "process tracing_on after traceoff" 0 "$(cat processes/$P/tracing_on)"
expect_eq "top tracing_on after traceoff" 0 "$(cat tracing_on)"
# a refused write puts the old words back: the counts stay
expect_eq "refused word" EINVAL "$(a processes/$P/set_ftrace_filter 'parse_request nosuchfn')"
expect_eq "counts after a refused write" "parse_noise:traceoff:count=1" \
	"$(grep traceoff processes/$P/set_ftrace_filter)"
# other changes replay the words: the counts stay where they are
echo parse_header >>set_ftrace_filter
echo function_graph >current_tracer
echo function >current_tracer
cat processes/$P/set_ftrace_filter >"$TOP/l.txt"
expect "after other changes" "$TOP/l.txt" <<'EOF2'
parse_header
parse_request
parse_noise:traceoff:count=1
parse_header:stacktrace:count=1
handle_request:traceon:unlimited
EOF2
expect_eq "top tracing_on still 0" 0 "$(cat tracing_on)"
# the traceon at handle_request turns tracing on again
run_req s1 1
cat set_ftrace_filter >"$TOP/l.txt"
expect "counts used up" "$TOP/l.txt" <<'EOF2'
parse_header
parse_request
parse_noise:traceoff:count=0
parse_header:stacktrace:count=0
handle_request:traceon:unlimited
EOF2
expect_eq "tracing_on after the last traceoff" 0 "$(cat processes/$P/tracing_on)"
run_req s1 1
expect_eq "no traceoff left" 1 "$(cat processes/$P/tracing_on)"
expect_eq "top tracing_on" 1 "$(cat tracing_on)"
# the third and last stack trace (the tracer switch emptied the buffers of the first two)
expect_eq "stack traces" 1 "$(grep -c '<stack trace>' trace)"
# removing and adding it again starts a fresh count
echo '!parse_noise:traceoff:0' >>set_ftrace_filter
echo 'parse_noise:traceoff:2' >>set_ftrace_filter
expect_eq "fresh count" "parse_noise:traceoff:count=2" "$(grep traceoff processes/$P/set_ftrace_filter)"
alive
finish
