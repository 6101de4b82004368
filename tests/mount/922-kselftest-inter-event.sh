#!/bin/bash
# The kernel's own ftrace self-tests of trigger/inter-event/ (synthetic
# events, inter-event hist triggers) against the mount, as tests/mount/885
# runs event/ and trigger/ (kselftest-events.lib): each case in
# processes/<its shell's pid>/, which shows the one list of synthetic
# events (synthetic_events, dynamic_events) and the README as the top
# level's; but for dynstring, at the top level (below).  The results must be exactly the list below; docs/tracefs.md
# ("The kernel's self-tests") says why each one that does not pass does not.
. "$(dirname "$0")/mount.lib"

. "$(dirname "$0")/kselftest-events.lib"
# PASS (XFAIL: the case's expected failure) must stay so; a change of
# verdict updates docs/tracefs.md too.
# dynstring's events are ping's (iputils-ping, scripts/install-deps.sh): FAIL where ping cannot run
DYN=FAIL
ping -c 1 -W 2 127.0.0.1 >/dev/null 2>&1 && DYN=PASS
verdicts() {
	cat <<EOF2
trigger/inter-event/trigger-action-hist-xfail.tc XFAIL
trigger/inter-event/trigger-field-variable-support.tc FAIL
trigger/inter-event/trigger-inter-event-combined-hist.tc FAIL
trigger/inter-event/trigger-multi-actions-accept.tc FAIL
trigger/inter-event/trigger-onchange-action-hist.tc FAIL
trigger/inter-event/trigger-onmatch-action-hist.tc FAIL
trigger/inter-event/trigger-onmatch-onmax-action-hist.tc FAIL
trigger/inter-event/trigger-onmax-action-hist.tc FAIL
trigger/inter-event/trigger-snapshot-action-hist.tc FAIL
trigger/inter-event/trigger-synthetic-eprobe.tc UNSUPPORTED
trigger/inter-event/trigger-synthetic-event-createremove.tc PASS
trigger/inter-event/trigger-synthetic-event-dynstring.tc $DYN
trigger/inter-event/trigger-synthetic-event-syntax.tc PASS
trigger/inter-event/trigger-synthetic_event_syntax_errors.tc PASS
trigger/inter-event/trigger-trace-action-hist.tc FAIL
EOF2
}
# at the top level: its events are ping's (a child of the case's shell, traced
# from its exec on with the top level's triggers, which every new process takes)
KSELFTEST_TOP="trigger/inter-event/trigger-synthetic-event-dynstring.tc"
kselftest_check trigger/inter-event
finish
