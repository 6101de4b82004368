# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# The process-event tests on tests/progs/reap (record/881, record/884): the
# program recorded with one event, its events as report and trace-cmd
# report print them, task, CPU, flags and time masked.
#
#   . "$(dirname "$0")/../lib/common.sh"; . "$UT_TESTS/lib/reap.sh"
#   reap_record EVENT PIDRE   record it into t.dat (its output checked);
#                             rep.txt: report's lines, each pid=PIDRE as pid=C
#   reap_tracecmd PIDRE       tc.txt: trace-cmd report's, masked alike
#   report_fields             filter: report's lines as "TASK EVENT: FIELDS"

report_fields() {
	sed -E 's/^ *([^ ]+)-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]{6}: /\1 /'
}

reap_record() {
	record t.dat -e "$1" -- "$(prog reap gcc-pfe)" || fail "record exited $?: $(cat t.dat.err)"
	expect "the program ran" t.dat.out <<'EOF2'
reaped 8 35
EOF2
	report t.dat | events | report_fields | sed -E "s/pid=$2/pid=C/" >rep.txt
}

reap_tracecmd() {
	trace-cmd report -i t.dat 2>/dev/null | grep -v '^cpus=' |
		sed -E -e 's/^ *([^ ]+)-[0-9]+ +\[[0-9]+\] +[0-9]+\.[0-9]{6}: ([a-z_]+): +/\1 \2: /' \
			-e "s/pid=$1/pid=C/" >tc.txt
}
