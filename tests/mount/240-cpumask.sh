#!/bin/bash
# tracing_cpumask (SPEC §3): the kernel's bitmap format, its write errors,
# and what it does: threads on a CPU outside the mask record nothing, a
# trace_marker write from such a CPU is EBADF, the mask covering every CPU
# is no mask at all.  Two servers pinned to CPU 0 and CPU 1.
. "$(dirname "$0")/mount.lib"

n=$(getconf _NPROCESSORS_CONF)
[ "$n" -ge 2 ] || skip "one CPU"
[ "$n" -le 32 ] || skip "more than 32 CPUs: the expected masks are written for one group"
command -v taskset >/dev/null || skip "no taskset"
taskset -c 1 true 2>/dev/null || skip "CPU 1 is not usable here"
taskset -c 0 true 2>/dev/null || skip "CPU 0 is not usable here"

do_mount
cd "$MNT" || exit 1
all=$(printf '%x' $(((1 << n) - 1)))
expect_eq "every CPU" "$all" "$(cat tracing_cpumask)"
expect_eq "a CPU that does not exist" EOVERFLOW "$(w tracing_cpumask "$(printf '%x' $((1 << n)))")"
expect_eq "a second group" EOVERFLOW "$(w tracing_cpumask 0,3)"
expect_eq "not hex" EINVAL "$(w tracing_cpumask x)"
expect_eq "0x" EINVAL "$(w tracing_cpumask 0x1)"
expect_eq "unchanged" "$all" "$(cat tracing_cpumask)"
expect_eq "0 is allowed" OK "$(w tracing_cpumask 0)"
expect_eq "0" "$(printf '%0*x' $(((n + 3) / 4)) 0)" "$(cat tracing_cpumask)"

start_server s0
start_server s1
P0=$(pid_of s0) P1=$(pid_of s1)
taskset -a -pc 0 "$P0" >/dev/null
taskset -a -pc 1 "$P1" >/dev/null
echo parse_header >set_ftrace_filter
echo function >current_tracer

# per_cpu: which process recorded on which CPU
per_cpu() {
	grep -v '^#' trace | sed -E 's/^ *[^ ]*-([0-9]+) +\[([0-9]+)\].*/\1 \2/' | sort | uniq -c |
		sed -e "s/ $P0 / s0 /" -e "s/ $P1 / s1 /" -e 's/^ *//'
}
for m in 1 2 "$all"; do
	echo "$m" >tracing_cpumask
	echo >trace
	run_req s0 2
	run_req s1 3
	echo "mask $m ($(cat "processes/$P0/tracing_cpumask") $(cat "processes/$P1/tracing_cpumask"))"
	per_cpu
done >"$TOP/cpus.txt"
sed -i "s/\b$all\b/ALL/g" "$TOP/cpus.txt"
expect "events by CPU" "$TOP/cpus.txt" <<'EOF2'
mask 1 (1 1)
4 s0 000
mask 2 (2 2)
6 s1 001
mask ALL (ALL ALL)
4 s0 000
6 s1 001
EOF2
# function_graph too (its fast path checks the same generation)
echo function_graph >current_tracer
echo 1 >tracing_cpumask
run_req s0 1
run_req s1 1
grep -v '^#' trace | sed -E 's/^ *([0-9])\).*(parse_header).*/\1 \2/' >"$TOP/graph.txt"
expect "function_graph, CPU 0 only" "$TOP/graph.txt" <<'EOF2'
0 parse_header
0 parse_header
EOF2
echo "$all" >tracing_cpumask
echo function >current_tracer
check "every CPU is no mask in the template" bash -c "! grep -q cpumask '$UTRACE_DIR/config'"

echo 2 >tracing_cpumask
check "a mask is kept in the template" grep -qx 'tracing_cpumask 2' "$UTRACE_DIR/config"
start_server s2
expect_eq "a process started now has it" 2 "$(cat "processes/$(pid_of s2)/tracing_cpumask")"
expect_eq "marker from CPU 0, outside the mask" EBADF \
	"$(werr taskset -c 0 bash -c 'echo hi >trace_marker')"
expect_eq "marker from CPU 1" OK "$(werr taskset -c 1 bash -c 'echo hi >trace_marker')"
expect_eq "one marker" 1 "$(grep -c 'tracing_mark_write: hi' trace)"
# a process's own mask
echo 1 >"processes/$P1/tracing_cpumask"
expect_eq "process mask" "1 2" "$(cat "processes/$P1/tracing_cpumask") $(cat tracing_cpumask)"
alive
finish
