#!/bin/bash
# The kernel's own ftrace self-tests, folders event/ and trigger/ (its
# subfolder trigger/inter-event/: tests/mount/922), against the mount.  As tests/mount/230 does for
# 00basic, ftrace and instances: the cases come from Debian's linux-source
# at test time (extracted once into BUILD/kselftest/, never kept in the
# repository; skipped without it) and run under tests/mount/ftracetest-run.
# The events they use are process events, and the program that provides
# them is the case's own shell: the runner runs with libutrace.so
# preloaded, and each case runs against processes/<its shell>/ (the
# runner's SELF), so its `( echo forked )` is a real sched_process_fork of
# a traced process, recorded there and firing that scope's triggers (the
# kernel's tracing_on is global, a process's here: at the top level one
# traceon could not turn every process on); event-no-pid, which wants other
# tasks' events beside its own, runs at the top level beside one more traced
# process (kselftest-events.lib: other_tasks).  The results must be exactly
# the list below; docs/tracefs.md ("The kernel's self-tests") says why each
# one that does not pass does not.
. "$(dirname "$0")/mount.lib"

. "$(dirname "$0")/kselftest-events.lib"
# PASS: must pass.  Every other verdict is explained in docs/tracefs.md
# ("The kernel's self-tests"); a change of verdict updates both.
verdicts() {
	cat <<'EOF2'
event/event-enable.tc FAIL
event/event-no-pid.tc PASS
event/event-pid.tc FAIL
event/subsystem-enable.tc PASS
event/toplevel-enable.tc PASS
event/trace_printk.tc UNRESOLVED
trigger/trigger-eventonoff.tc FAIL
trigger/trigger-filter.tc PASS
trigger/trigger-hist-expressions.tc PASS
trigger/trigger-hist-mod.tc FAIL
trigger/trigger-hist-syntax-errors.tc UNSUPPORTED
trigger/trigger-hist.tc FAIL
trigger/trigger-multihist.tc PASS
trigger/trigger-snapshot.tc PASS
trigger/trigger-stacktrace.tc PASS
trigger/trigger-trace-marker-hist.tc PASS
trigger/trigger-trace-marker-snapshot.tc PASS
trigger/trigger-trace-marker-synthetic-kernel.tc UNSUPPORTED
trigger/trigger-trace-marker-synthetic.tc PASS
trigger/trigger-traceonoff.tc PASS
EOF2
}
# at the top level, beside other traced processes (kselftest-events.lib: other_tasks)
KSELFTEST_TOP="event/event-no-pid.tc"
# under ASan: five of the passing cases (events, a filter, the snapshot, ftrace:print's hist,
# its variables and onmatch())
KSELFTEST_ASAN="event/toplevel-enable.tc trigger/trigger-filter.tc trigger/trigger-snapshot.tc \
trigger/trigger-trace-marker-hist.tc trigger/trigger-trace-marker-synthetic.tc"
kselftest_check event trigger
finish
