#!/bin/bash
# tests/run never runs a test outside a temporary directory of its own:
# without one (an unwritable TMPDIR) it stops with exit 2 and a message,
# and nothing is written where it was started (a test in `cd ""` would
# have run in the current directory).
. "$(dirname "$0")/../lib/common.sh"

src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir here && cd here || exit 1
TMPDIR=/nonexistent/utrace-tmp "$src/tests/run" --build "$UT_BUILD" 010-single >out.txt 2>err.txt
expect_eq "exit status" 2 $?
grep -q 'cannot make a temporary directory in /nonexistent/utrace-tmp' err.txt ||
	fail "no message: $(cat err.txt)"
expect_eq "nothing written here" "err.txt out.txt" "$(ls | tr '\n' ' ' | sed 's/ $//')"
finish
