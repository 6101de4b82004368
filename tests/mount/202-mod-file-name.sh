#!/bin/bash
# :mod: with the shared object's file name (issue 10 item 6): "lib.so",
# "lib.so.N" and a path name the module "lib", as the kernel-style name
# does; a module part that leaves no name is refused (EINVAL).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

expect_eq "tlib_add:mod:libtlib.so" OK "$(w set_ftrace_filter 'tlib_add:mod:libtlib.so')"
expect_eq "listing" "tlib_add [libtlib]" "$(sed 's/ *$//' processes/$P/set_ftrace_filter)"
echo function >current_tracer
send s1 "lib 1"
wait_for s1 '^lib 1 '
events <trace | sed -E 's/^.*: //; s/ <-.*//' | sort -u >"$TOP/t.txt"
expect "traced" "$TOP/t.txt" <<'EOF2'
tlib_add
EOF2
expect_eq ":mod:libtlib.so.1" OK "$(w processes/$P/set_ftrace_filter ':mod:libtlib.so.1')"
sed 's/ *$//' processes/$P/set_ftrace_filter >"$TOP/l.txt"
expect "whole module" "$TOP/l.txt" <<'EOF2'
tlib_add [libtlib]
tlib_mul [libtlib]
EOF2
expect_eq "path" OK "$(w set_ftrace_filter "tlib_mul:mod:$UT_PROGS/libtlib.so")"
expect_eq "path listing" "tlib_mul [libtlib]" "$(sed 's/ *$//' processes/$P/set_ftrace_filter)"
# a module part with no name in it
expect_eq ":mod:.so" EINVAL "$(w set_ftrace_filter ':mod:.so')"
expect_eq "process :mod:.so" EINVAL "$(w processes/$P/set_ftrace_filter 'f*:mod:.so.1')"
expect_eq "unchanged" "tlib_mul [libtlib]" "$(sed 's/ *$//' processes/$P/set_ftrace_filter)"
alive
finish
