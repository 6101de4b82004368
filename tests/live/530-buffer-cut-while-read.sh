#!/bin/bash
# Bad input (issue 17): a buffer file truncated while a reader has it
# mapped.  The reader's touches of the lost pages were SIGBUS: show died in
# the middle.  Now (ut_read_guard_bus) those pages read as zeros: show and
# extract go on, print the other threads' events whole, and say how many
# pages were cut short.  The cut is made by a test hook right after the
# reader maps the buffer (UTRACE_TEST_CUT_MAPPED), as someone truncating it
# at that moment would.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

P=$(prog threadchurn gcc-pfe)
calls() { grep -c ' c_work <-' "$1"; }

check "start" "$UTRACE" start -p function -l c_work
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 3 5 >prog.out 2>prog.err || fail "program exited $?"
expect_eq "the program's result" "threadchurn 3 threads total 90" "$(cat prog.out)"
"$UTRACE" show >all.txt 2>all.err || fail "show exited $?: $(cat all.err)"
expect_eq "show, nothing cut" 15 "$(calls all.txt)"

UTRACE_TEST_CUT_MAPPED=/buf.1 "$UTRACE" show >cut.txt 2>cut.err
expect_eq "show's status with a buffer cut under it" 0 $?
no_crash cut.err
expect_eq "the other threads' events" 10 "$(calls cut.txt)"
grep -q 'warning: [0-9]* pages\? of trace buffers cut short while being read' cut.err ||
	fail "show did not say so: $(cat cut.err)"

# buf.1 stays cut (said before reading, as live/528 checks); buf.2 is cut now
UTRACE_TEST_CUT_MAPPED=/buf.2 "$UTRACE" extract -o x.dat 2>x.err
expect_eq "extract's status with a buffer cut under it" 0 $?
no_crash x.err
expect_eq "extract: the third thread's events" 5 "$(report x.dat | grep -c ' c_work <-')"
grep -q 'cut short while being read' x.err || fail "extract did not say so: $(cat x.err)"
finish
