#!/bin/bash
# function_profile_enabled and trace_stat/ (SPEC §14): the profiler turned
# on through the mount, its table with the true hit counts, merged at the
# top level and per thread under processes/PID/trace_stat/functionTID.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo 'parse_*' >set_ftrace_filter
echo 1 >function_profile_enabled
expect_eq "profiler on" 1 "$(cat function_profile_enabled)"
run_req s1 5
sed -n 1,2p trace_stat/function >"$TOP/head.txt"
expect "table header" "$TOP/head.txt" <<'EOF2'
  Function                               Hit    Time            Avg             s^2
  --------                               ---    ----            ---             ---
EOF2
awk 'NR > 2 && NF >= 2 {print $1, $2}' trace_stat/function | sort >"$TOP/hits.txt"
expect "hits, all threads" "$TOP/hits.txt" <<'EOF2'
parse_header 10
parse_noise 5
parse_request 5
EOF2
# function0: the kernel's name of the first table (ftracetest reads it)
expect_eq "top-level files" "function function0" "$(ls trace_stat | tr '\n' ' ' | sed 's/ $//')"
awk 'NR > 2 && NF >= 2 {print $1, $2}' trace_stat/function0 | sort >"$TOP/hits0.txt"
check "function0 is the merged table" cmp -s "$TOP/hits.txt" "$TOP/hits0.txt"
check "no processes/PID/trace_stat/function0" test ! -e processes/$P/trace_stat/function0
expect_eq "per-thread file listed" "function function$P" "$(ls processes/$P/trace_stat | tr '\n' ' ' | sed 's/ $//')"
awk 'NR > 2 && NF >= 2 {print $1, $2}' "processes/$P/trace_stat/function$P" | sort >"$TOP/t.txt"
expect "hits, the main thread" "$TOP/t.txt" <<'EOF2'
parse_header 10
parse_noise 5
parse_request 5
EOF2
check "no stat for a thread that is not there" test ! -e processes/$P/trace_stat/function1
echo 0 >function_profile_enabled
alive
finish
