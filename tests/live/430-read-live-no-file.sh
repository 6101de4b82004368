#!/bin/bash
# The public reader of a live session (ut_reader_open_live, through
# examples/read_trace -l) reads the snapshot as its trace.dat would give it
# back, without writing one: in a private TMPDIR the only files a live read
# creates are the recorder's spool (a copy of the rings, removed before the
# first record is handed out), and none is left behind.  The counts are
# those of the trace.dat that extract writes of the same buffers.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

RT=$UT_BUILD/examples/read_trace
[ -x "$RT" ] || fail "$RT missing (make all)"
command -v strace >/dev/null || skip "strace not installed"

mkdir tmp
server_start gcc-pfe
check "start" "$UTRACE" start -p function -l 'parse_*'
server_cmd "run 3"
# LeakSanitizer cannot run under ptrace (the ASan build): leaks are checked elsewhere
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
TMPDIR=$PWD/tmp strace -f -qq -o open.log -e trace=open,openat,creat,mkdir \
	"$RT" -l "$SERVER_PID" >live.txt 2>live.err ||
	fail "read_trace -l exited $?: $(cat live.err)"
check "extract" "$UTRACE" extract -o snap.dat
server_stop
"$RT" snap.dat >file.txt 2>file.err || fail "read_trace snap.dat exited $?: $(cat file.err)"
expect "live counts" live.txt <<'EOF2'
       6 parse_header
       3 parse_noise
       3 parse_request
EOF2
expect "the same as its trace.dat's" live.txt <file.txt

# Files made in TMPDIR (O_CREAT), other than inside the recorder's spool directory.
grep -E "\"$PWD/tmp/[^\"]*\".*O_CREAT|^[0-9]+ +creat\(\"$PWD/tmp/" open.log |
	grep -vE "\"$PWD/tmp/[^\"/]*\.spool\.[^\"/]*/" >made.txt
expect "no file written in TMPDIR but the spool" made.txt </dev/null
ls -A tmp >left.txt
expect "nothing left in TMPDIR" left.txt </dev/null
no_crash live.err file.err
finish
