#!/bin/bash
# processes/PID/: one directory per traced process with the same files,
# acting on that process only; the top level acts on all of them and is
# the template for processes started later.  set_ftrace_pid narrows the
# top level; saved_cmdlines, buffer_total_size_kb, per_thread/TID/trace.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
start_server s2
P1=$(pid_of s1)
P2=$(pid_of s2)
cd "$MNT" || exit 1

ls processes | sort -n >"$TOP/procs.txt"
printf '%s\n' "$P1" "$P2" | sort -n >"$TOP/want.txt"
check "processes/ lists both" cmp -s "$TOP/procs.txt" "$TOP/want.txt"

# per process: s1 traces parse_header, s2 parse_noise, with different tracers
echo parse_header >processes/$P1/set_ftrace_filter
echo function >processes/$P1/current_tracer
echo parse_noise >processes/$P2/set_ftrace_filter
echo function >processes/$P2/current_tracer
expect_eq "top tracer untouched" nop "$(cat current_tracer)"
expect_eq "top filter untouched" "#### all functions enabled ####" "$(cat set_ftrace_filter)"
expect_eq "s1 filter" parse_header "$(cat processes/$P1/set_ftrace_filter)"
expect_eq "s2 filter" parse_noise "$(cat processes/$P2/set_ftrace_filter)"
run_req s1 1
run_req s2 1
funcs <processes/$P1/trace >"$TOP/t1.txt"
expect "s1 trace" "$TOP/t1.txt" <<'EOF2'
parse_header <-parse_request
parse_header <-parse_request
EOF2
funcs <processes/$P2/trace >"$TOP/t2.txt"
expect "s2 trace" "$TOP/t2.txt" <<'EOF2'
parse_noise <-parse_request
EOF2
# the top-level trace merges both
expect_eq "top trace" 3 "$(grep -vc '^#' trace)"
check "top trace has s1" grep -q "server.gcc-pfe-$P1 " trace
check "top trace has s2" grep -q "server.gcc-pfe-$P2 " trace
# clearing one process's trace leaves the other's
echo >processes/$P1/trace
expect_eq "s1 cleared" 0 "$(grep -vc '^#' processes/$P1/trace)"
expect_eq "s2 kept" 1 "$(grep -vc '^#' processes/$P2/trace)"

# a top-level write goes to every process (and keeps their other settings)
echo 'parse_request' >set_ftrace_filter
expect_eq "s1 filter from top" parse_request "$(cat processes/$P1/set_ftrace_filter)"
expect_eq "s2 filter from top" parse_request "$(cat processes/$P2/set_ftrace_filter)"
echo function >current_tracer
echo >trace
run_req s1 1
run_req s2 1
expect_eq "both traced" 2 "$(grep -c 'parse_request <-handle_request' trace)"

# set_ftrace_pid: only s2 from now on
echo "$P2" >set_ftrace_pid
expect_eq "set_ftrace_pid" "$P2" "$(cat set_ftrace_pid)"
echo "$P1" >>set_ftrace_pid
expect_eq "set_ftrace_pid >>" "$(printf '%s\n' "$P1" "$P2" | sort -n | tr '\n' ' ')" \
	"$(cat set_ftrace_pid | tr '\n' ' ')"
echo "$P2" >set_ftrace_pid
echo >trace
run_req s1 1
run_req s2 1
expect_eq "only s2" "server.gcc-pfe-$P2" "$(grep -v '^#' trace | awk '{print $1}' | sort -u)"
echo >set_ftrace_pid
expect_eq "set_ftrace_pid cleared" "no pid" "$(cat set_ftrace_pid)"

# saved_cmdlines: "PID COMM" of each traced thread
grep -qx "$P1 server.gcc-pfe" saved_cmdlines || fail "saved_cmdlines: no $P1"
grep -qx "$P2 server.gcc-pfe" saved_cmdlines || fail "saved_cmdlines: no $P2"
expect_eq "process saved_cmdlines" "$P1 server.gcc-pfe" "$(cat processes/$P1/saved_cmdlines)"
# buffers: each thread has buffer_size_kb (rounded up by the process)
kb=$(cat processes/$P1/buffer_size_kb)
expect_eq "total of s1" "$kb" "$(cat processes/$P1/buffer_total_size_kb)"
expect_eq "total of all" $((2 * kb)) "$(cat buffer_total_size_kb)"

# threads: per_thread/TID/trace holds one thread's events
echo st_leaf >processes/$P2/set_ftrace_filter
echo >trace
send s2 "hammer 3"
wait_for s2 '^hammered '
ls processes/$P2/per_thread | sort -n >"$TOP/tids.txt"
expect_eq "threads" 5 "$(wc -l <"$TOP/tids.txt")"
for t in $(cat "$TOP/tids.txt"); do
	[ "$t" = "$P2" ] && continue
	n=$(grep -vc '^#' processes/$P2/per_thread/$t/trace)
	expect_eq "thread $t: its 6 st_leaf calls" 6 "$n"
	expect_eq "thread $t: only itself" "$t" \
		"$(grep -v '^#' processes/$P2/per_thread/$t/trace | sed -E 's/^ *[^ ]*-([0-9]+) .*/\1/' | sort -u)"
done
expect_eq "process: 24 calls" 24 "$(grep -c 'st_leaf' processes/$P2/trace)"

# a process started now gets the top-level configuration
start_server s3
P3=$(pid_of s3)
expect_eq "s3 tracer" function "$(cat processes/$P3/current_tracer)"
expect_eq "s3 filter" parse_request "$(cat processes/$P3/set_ftrace_filter)"
run_req s3 2
expect_eq "s3 traced" 2 "$(grep -c 'parse_request' processes/$P3/trace)"
alive
finish
