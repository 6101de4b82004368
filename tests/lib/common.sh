# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Helpers for the end-to-end scripts tests/record/NNN-topic.sh.  Source it:
#
#   . "$(dirname "$0")/../lib/common.sh"
#
# The runner (tests/run) gives UT_BUILD (the build dir holding utrace and
# libutrace.so) and UT_PROGS (the test programs) and runs the script in an
# empty temporary directory.  Run by hand:
#   cd $(mktemp -d) && UT_BUILD=/work/main/build bash /work/main/tests/record/010-single.sh
#
# A script checks things with expect/expect_eq/check/fail and ends with
# `finish`: exit 0 (all passed), 1 (a check failed), 77 (skip) or 78 (only
# checks marked as known utrace bugs failed: XFAIL).
set -u
set -o pipefail

# has GREP-ARGS...: `grep -q` for the end of a pipeline.  grep -q stops at
# the first match; the command writing into it then dies of SIGPIPE and,
# under pipefail, the whole pipeline fails -- now and then, as the timing
# goes.  has reads all of its input.  (mount/885 decided it was not under
# ASan that way, ran all 20 self-tests instead of 5, and hit its timeout.)
has() { grep "$@" >/dev/null; }

_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
UT_BUILD=${UT_BUILD:-$(cd "$_lib_dir/../.." && pwd)/build}
UT_PROGS=${UT_PROGS:-$UT_BUILD/progs}
UTRACE=$UT_BUILD/utrace
STYLES=${STYLES:-gcc-pfe gcc-fentry gcc-mcount clang-pfe clang-fentry}
export LC_ALL=C

_failed=0
_xfailed=0
_known_bug=
_xfail_reasons=

# prog NAME STYLE: path of a test program.
prog() { echo "$UT_PROGS/$1.$2"; }

say() { echo "$*"; }

fail() {
	if [ -n "$_known_bug" ]; then
		echo "xfail: $*"
		case $_xfail_reasons in
		*"$_known_bug"*) ;;
		*) _xfail_reasons+="XFAIL: known bug: $_known_bug"$'\n' ;;
		esac
		_xfailed=1
	else
		echo "FAIL: $*"
		_failed=1
	fi
}

# known_bug "description": the checks until `end_known_bug` fail because of a
# known utrace bug; their failures count as XFAIL, not FAIL.
known_bug() { _known_bug=$1; }
end_known_bug() { _known_bug=; }

skip() {
	echo "SKIP: $*"
	exit 77
}

finish() {
	if [ $_failed != 0 ]; then
		exit 1
	elif [ $_xfailed != 0 ]; then
		printf '%s' "$_xfail_reasons"
		exit 78
	fi
	exit 0
}

# check "what" COMMAND...: fail unless COMMAND succeeds.
check() {
	local what=$1
	shift
	"$@" || fail "$what"
}

# expect LABEL FILE <<'EOF' ... EOF: FILE must equal the expected text.
expect() {
	local label=$1 file=$2 exp
	exp=$(mktemp expected.XXXX)
	cat >"$exp"
	if ! diff -u --label "expected ($label)" --label "actual ($label)" "$exp" "$file"; then
		fail "$label: output differs"
	fi
	rm -f "$exp"
}

# expect_eq LABEL WANT GOT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}

# for_styles FUNC [ARGS...]: FUNC STYLE ARGS... for every style in $STYLES.
for_styles() {
	local fn=$1 s
	shift
	for s in $STYLES; do
		"$fn" "$s" "$@"
	done
}

# record OUT.dat [RECORD-OPTIONS...] -- PROGRAM ARGS...: utrace record; the
# program's stdout/stderr go to OUT.dat.out/OUT.dat.err (record's own
# messages too).  Returns record's exit status.
record() {
	local out=$1
	shift
	"$UTRACE" record -o "$out" "$@" >"$out.out" 2>"$out.err"
}

# report FILE [REPORT-OPTIONS...]: utrace report to stdout; errors to FILE.rerr.
report() {
	local in=$1
	shift
	"$UTRACE" report -i "$in" "$@" 2>"$in.rerr"
}

# ended PID: PID (not our child) has ended, or is a zombie its stopped
# parent has not reaped: polled, with a generous bound (60 s)
ended() {
	local _
	for _ in $(seq 1200); do
		[ -e /proc/$1 ] || return 0
		[ "$(sed -E 's/.*\) (.).*/\1/' /proc/$1/stat 2>/dev/null)" = Z ] && return 0
		sleep 0.05
	done
	return 1
}

# lost_told FILE: the sum of the counts FILE's "CPU:N [LOST M EVENTS]" lines tell
lost_told() { sed -nE 's/^CPU:[0-9]+ \[LOST ([0-9]+) EVENTS\]$/\1/p' "$1" | awk '{n += $1} END {print n + 0}'; }

# churn_want: threadchurn's "tid N calls M" lines (its "tids" mode, in
# prog.txt) as "N M" into want.txt, sorted, 150 threads of them; $want: all calls
churn_want() {
	sed -n 's/^tid \([0-9]*\) calls \([0-9]*\)$/\1 \2/p' prog.txt | sort >want.txt
	expect_eq "threads" 150 "$(wc -l <want.txt)"
	# shellcheck disable=SC2034 # used by the scripts that call this
	want=$(awk '{n += $2} END {print n}' want.txt)
}

# churn_tids FILE: "tid calls" per thread, sorted, from FILE's c_work lines
# (trace_pipe's: task "comm-TID")
churn_tids() {
	grep ' c_work <-' "$1" | sed -E 's/^ *.*-([0-9]+) +\[[0-9]+\].*/\1/' | sort | uniq -c |
		awk '{print $2, $1}' | sort
}

# Sanitizer reports or crashes of utrace itself anywhere in FILEs: fail.
no_crash() {
	local f
	for f in "$@"; do
		if grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:|Segmentation fault|core dumped' "$f" 2>/dev/null; then
			fail "sanitizer/crash report in $f:"
			head -n 40 "$f"
		fi
	done
}

# mask: fixed tokens for what changes from run to run:
#   timestamps -> <TS>, TASK-PID -> comm-<PID> (the comm without the
#   program's .<style> suffix), [CPU] -> [<CPU>], hex -> <ADDR>, #P:N -> #P:<N>,
#   leading alignment blanks removed.
mask() {
	sed -E \
		-e 's/ +[0-9]+\.[0-9]{6}:/ <TS>:/' \
		-e 's/#P:[0-9]+/#P:<N>/' \
		-e 's/^ *([^ #][^ ]*)-([0-9]+) +\[[0-9]+\]/\1-<PID> [<CPU>]/' \
		-e 's/^ *([^ #][^ ]*)-([0-9]+) +\( *([0-9]+|-----)\) +\[[0-9]+\]/\1-<PID> (<TGID>) [<CPU>]/' \
		-e 's/^([A-Za-z_]+)\.(gcc|clang)[-a-z]*-<PID>/\1-<PID>/' \
		-e 's/0x[0-9a-f]+/<ADDR>/g' \
		-e 's/<[0-9a-f]{8,16}>/<<ADDR>>/g'
}

# events: only the event lines of a report (no header comments).
events() { grep -v '^#'; }

# funcs: "function <-parent" part of each event line (after the timestamp).
funcs() { events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //'; }

# count_funcs: "count function" per function name (events on stdin).
count_funcs() {
	funcs | awk '{print $1}' | sort | uniq -c | awk '{print $2, $1}'
}

# task_counts: for each thread (TID), its sorted "func=count" list; then the
# lists sorted with their number of threads: "NTHREADS func=n func=n ...".
# Deterministic whatever the interleaving, tids and CPUs.
task_counts() {
	events | sed -E 's/^ *[^ ]*-([0-9]+) +(\( *[0-9-]+\) +)?\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]{6}: ([^ ]+).*/\1 \3/' |
		awk '{c[$1" "$2]++} END {for (k in c) {split(k, a, " "); print a[1], a[2] "=" c[k]}}' |
		sort -k1,1n -k2,2 |
		awk '$1 != t {if (t != "") print l; t = $1; l = ""} {l = l (l == "" ? "" : " ") $2} END {if (t != "") print l}' |
		sort | uniq -c | awk '{$1 = $1; print}'
}

# ctl_counter NAME CTL: a counter of a session's control block (struct
# ut_ctl, include/utrace/abi.h), read from the file.  The offsets are
# offsetof()'s: tests/unit/test_sessions.c (ctl_counter_offsets) checks them.
ctl_counter() {
	local off
	case $1 in
	slots_reused) off=344 ;;
	slot_looks) off=352 ;;
	*) echo "ctl_counter: unknown counter $1" >&2; return 1 ;;
	esac
	od -An -t u8 -j "$off" -N 8 "$2" 2>/dev/null | tr -d ' '
}

# well_formed: every event line has the trace format; prints offenders.
well_formed() {
	events | grep -vE '^ *.+-[0-9]+ +\[[0-9]{3}\] [.dDnNhHsSbBzZ0-9]{4,5} +[0-9]+\.[0-9]{6}: [^ ]+( <-[^ ]+)?$'
	return 0
}

[ -x "$UTRACE" ] || {
	echo "FAIL: no $UTRACE"
	exit 1
}
[ -d "$UT_PROGS" ] || {
	echo "FAIL: no $UT_PROGS (make progs)"
	exit 1
}
