#!/bin/bash
# The kernel's own ftrace self-tests (tools/testing/selftests/ftrace: the
# 00basic, ftrace and instances folders) against the mount, while
# tests/progs/kfuncs (functions named schedule, kernel_clone, do_execve,
# mutex_lock...) is traced.  The cases come from Debian's linux-source
# package at test time, extracted once into BUILD/kselftest/ (never kept in
# the repository); skipped without it.  Each case is run as ftracetest runs
# it (tests/mount/ftracetest-run), the cases flagged "instance" again in a
# new instances/ directory.  The results must be exactly the list below;
# docs/tracefs.md says why each one that does not pass cannot apply.
. "$(dirname "$0")/mount.lib"

src=$(find /usr/src -maxdepth 1 -name 'linux-source-*.tar.xz' | sort -V | tail -n 1)
[ -n "$src" ] || skip "no kernel source (apt-get install linux-source-6.1)"
cache=$(dirname "$UT_PROGS")/kselftest # BUILD/kselftest, shared with the ASan pass
testd=$cache/ftrace/test.d
mkdir -p "$cache"
(
	flock 9
	[ -f "$testd/functions" ] && exit 0
	rm -rf "$cache/tmp" && mkdir "$cache/tmp" &&
		tar -xJf "$src" -C "$cache/tmp" --wildcards '*/tools/testing/selftests/ftrace/*' &&
		rm -rf "$cache/ftrace" &&
		mv "$cache"/tmp/*/tools/testing/selftests/ftrace "$cache/ftrace" &&
		rm -rf "$cache/tmp"
) 9>"$cache/lock"
[ -f "$testd/functions" ] || { fail "cannot extract the self-tests from $src"; finish; }

do_mount
mkfifo "$TOP/kfuncs.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog kfuncs gcc-pfe)" <"$TOP/kfuncs.in" >"$TOP/kfuncs.out" &
_server_pids+=($!)
exec {kin}>"$TOP/kfuncs.in"
wait_for kfuncs '^ready$'

RUN=$(dirname "$0")/ftracetest-run
: >"$TOP/results.txt"
# run_case CASE.tc [instance]
run_case() {
	local tc=$1 dir=$MNT name=${1#"$testd"/} r
	if [ -n "${2:-}" ]; then
		dir=$(mktemp -d "$MNT/instances/ftracetest.XXXXXX") || {
			echo "$name (instance) FAIL" >>"$TOP/results.txt"
			return
		}
		name="$name (instance)"
	fi
	TMPDIR=$TOP timeout 30 sh "$RUN" "$dir" "$testd" "$tc" "$TOP/r" \
		>>"$TOP/kselftest.log" 2>&1
	r=$(cat "$TOP/r" 2>/dev/null)
	echo "$name ${r:-FAIL}" >>"$TOP/results.txt"
	[ -n "${2:-}" ] && rmdir "$dir"
	return 0
}
cases=$(find "$testd/00basic" "$testd/ftrace" "$testd/instances" -name '*.tc' | sort)
for tc in $cases; do
	echo "=== $tc" >>"$TOP/kselftest.log"
	run_case "$tc"
done
for tc in $cases; do
	grep -q '^#[ 	]*flags:.*instance' "$tc" || continue
	echo "=== $tc (instance)" >>"$TOP/kselftest.log"
	run_case "$tc" instance
done
cat "$TOP/results.txt"
# PASS: must pass.  Every other verdict is explained in docs/tracefs.md
# ("The kernel's self-tests"); a change of verdict updates both.
# (func_cpumask needs two CPUs: UNRESOLVED on one)
[ "$(nproc)" -ge 2 ] || sed -i 's|^ftrace/func_cpumask.tc UNRESOLVED$|ftrace/func_cpumask.tc PASS|' "$TOP/results.txt"
tee "$TOP/expected.txt" <<'EOF2' >/dev/null
00basic/basic1.tc PASS
00basic/basic2.tc PASS
00basic/basic3.tc PASS
00basic/basic4.tc PASS
00basic/ringbuffer_size.tc PASS
00basic/snapshot.tc PASS
00basic/trace_pipe.tc PASS
ftrace/fgraph-filter-stack.tc UNSUPPORTED
ftrace/fgraph-filter.tc PASS
ftrace/func-filter-glob.tc PASS
ftrace/func-filter-notrace-pid.tc UNSUPPORTED
ftrace/func-filter-pid.tc FAIL
ftrace/func-filter-stacktrace.tc PASS
ftrace/func_cpumask.tc PASS
ftrace/func_event_triggers.tc FAIL
ftrace/func_mod_trace.tc UNRESOLVED
ftrace/func_profile_stat.tc PASS
ftrace/func_profiler.tc PASS
ftrace/func_set_ftrace_file.tc PASS
ftrace/func_stack_tracer.tc UNSUPPORTED
ftrace/func_traceonoff_triggers.tc FAIL
ftrace/tracing-error-log.tc PASS
instances/instance-event.tc PASS
instances/instance.tc PASS
00basic/basic2.tc (instance) PASS
00basic/basic3.tc (instance) PASS
00basic/ringbuffer_size.tc (instance) PASS
00basic/snapshot.tc (instance) PASS
00basic/trace_pipe.tc (instance) PASS
ftrace/func-filter-notrace-pid.tc (instance) UNSUPPORTED
ftrace/func-filter-pid.tc (instance) FAIL
ftrace/func-filter-stacktrace.tc (instance) PASS
ftrace/func_event_triggers.tc (instance) FAIL
ftrace/func_traceonoff_triggers.tc (instance) FAIL
EOF2
expect "results" "$TOP/results.txt" <"$TOP/expected.txt"
# a verdict that changed: that case's own log (its commands' output, not the xtrace)
if [ "$_failed" != 0 ]; then
	while read -r line; do
		grep -qxF "$line" "$TOP/expected.txt" && continue
		echo "--- $line:"
		awk -v c="=== $testd/${line% *}" '/^=== / {on = ($0 == c)} on' "$TOP/kselftest.log" |
			grep -v '^+ ' | tail -n 40
	done <"$TOP/results.txt"
fi
echo stop >&"$kin" # kfuncs ends when its stdin has a line
alive
finish
