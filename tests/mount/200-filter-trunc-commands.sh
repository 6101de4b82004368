#!/bin/bash
# A truncating write to set_ftrace_filter (echo f > set_ftrace_filter, or
# : > set_ftrace_filter) empties the function list only: the function
# commands stay, and still act, until "!FUNC:CMD" removes them (SPEC §12;
# issue 10 item 12).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo 'parse_*' >set_ftrace_filter
echo 'parse_noise:traceoff' >>set_ftrace_filter
echo 'handle_request:stacktrace:3' >>set_ftrace_filter
echo handle_request >set_ftrace_filter
for d in . processes/$P; do
	cat $d/set_ftrace_filter >"$TOP/l.txt"
	expect "$d: > keeps the commands" "$TOP/l.txt" <<'EOF2'
handle_request
parse_noise:traceoff:unlimited
handle_request:stacktrace:count=3
EOF2
done
: >set_ftrace_filter
cat set_ftrace_filter >"$TOP/l.txt"
expect "O_TRUNC alone keeps the commands" "$TOP/l.txt" <<'EOF2'
#### all functions enabled ####
parse_noise:traceoff:unlimited
handle_request:stacktrace:count=3
EOF2
echo 'parse_request' >processes/$P/set_ftrace_filter
cat processes/$P/set_ftrace_filter >"$TOP/l.txt"
expect "process: > keeps the commands" "$TOP/l.txt" <<'EOF2'
parse_request
parse_noise:traceoff:unlimited
handle_request:stacktrace:count=3
EOF2
# the kept traceoff still fires
echo function >current_tracer
run_req s1 1
expect_eq "traceoff kept and fired" 0 "$(cat processes/$P/tracing_on)"
# removed with '!' only, also by a truncating write (the kernel's selftests reset so)
expect_eq "'!cmd' with >" OK "$(w set_ftrace_filter '!parse_noise:traceoff')"
echo '!handle_request:stacktrace:0' >>set_ftrace_filter
cat set_ftrace_filter >"$TOP/l.txt"
expect "removed with !" "$TOP/l.txt" <<'EOF2'
#### all functions enabled ####
EOF2
alive
finish
