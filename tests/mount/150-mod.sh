#!/bin/bash
# set_ftrace_filter with :mod: on a running process (a seed-document
# workflow): the functions of one library, the library minus a pattern,
# and a pattern limited to the library; the listing names the module.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo ':mod:libtlib' >set_ftrace_filter
echo function >current_tracer
sed 's/ *$//' processes/$P/set_ftrace_filter | sort >"$TOP/l.txt"
expect "listing: the module's functions" "$TOP/l.txt" <<'EOF2'
tlib_add [libtlib]
tlib_mul [libtlib]
EOF2
send s1 "lib 2"
wait_for s1 '^lib 2 '
run_req s1 1
events <trace | sed -E 's/^.*: //; s/ <-.*//' >"$TOP/t.txt"
# per call: tlib_add, then tlib_mul, which calls tlib_add twice
expect "only the library" "$TOP/t.txt" <<'EOF2'
tlib_add
tlib_mul
tlib_add
tlib_add
tlib_add
tlib_mul
tlib_add
tlib_add
EOF2
echo '!tlib_mul' >>set_ftrace_filter
echo '*_add:mod:libtlib' >processes/$P/set_ftrace_filter
expect_eq "pattern within the module" "tlib_add [libtlib]" "$(sed 's/ *$//' processes/$P/set_ftrace_filter)"
alive
finish
