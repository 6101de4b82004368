#!/bin/bash
# A set_ftrace_filter that holds only function commands selects no function
# of its own: every function is traced, as the kernel does ("#### all
# functions enabled ####" above the commands).  Also after a command was
# added and removed again, and in an instance.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
cd "$MNT" || exit 1

traced() { grep -v '^#' "$1" | grep -c "$2"; }

echo function >current_tracer
echo 'handle_request:stacktrace:1' >set_ftrace_filter
echo >trace
run_req s1 1
cat trace >"$TOP/t1.txt"
[ "$(traced "$TOP/t1.txt" ' parse_request <-')" -ge 1 ] ||
	fail "only a command: parse_request not traced: $(head -20 "$TOP/t1.txt")"

echo '!handle_request:stacktrace:count=0' >>set_ftrace_filter # as listed
echo 'handle_request:traceon' >>set_ftrace_filter
echo '!handle_request:traceon' >set_ftrace_filter
cat set_ftrace_filter >"$TOP/l.txt"
expect "commands added and removed" "$TOP/l.txt" <<'EOF2'
#### all functions enabled ####
EOF2
echo >trace
run_req s1 1
cat trace >"$TOP/t2.txt"
[ "$(traced "$TOP/t2.txt" ' parse_request <-')" -ge 1 ] ||
	fail "commands removed: parse_request not traced: $(head -20 "$TOP/t2.txt")"

mkdir instances/one
echo 'handle_request:stacktrace:1' >instances/one/set_ftrace_filter
echo function >instances/one/current_tracer
run_req s1 1
cat instances/one/trace >"$TOP/t3.txt"
[ "$(traced "$TOP/t3.txt" ' parse_request <-')" -ge 1 ] ||
	fail "instance, only a command: parse_request not traced: $(head -20 "$TOP/t3.txt")"
rmdir instances/one
alive
finish
