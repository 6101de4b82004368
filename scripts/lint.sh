#!/bin/sh
# Static analysis: cppcheck, then clang-tidy (checks in .clang-tidy), over
# every project .c file.  Exits non-zero on any finding of either tool.
#
#   scripts/lint.sh              everything
#   scripts/lint.sh FILE.c...    just these files
#   JOBS=4 scripts/lint.sh       more parallel clang-tidy runs (default 2)
#   CPPCHECK=... CLANG_TIDY=...  other binaries (default cppcheck, clang-tidy)
#
# Suppressing a finding is for true false positives only, inline and with a
# comment saying why: `// NOLINT(check): why` for clang-tidy,
# `// cppcheck-suppress id` (+ why) on the line before for cppcheck.
set -u

cd "$(dirname "$0")/.." || exit 2

CPPCHECK=${CPPCHECK:-cppcheck}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy}
JOBS=${JOBS:-2}

for tool in "$CPPCHECK" "$CLANG_TIDY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "lint: $tool not found (apt-get install cppcheck clang-tidy)" >&2
		exit 2
	fi
done

if [ $# -gt 0 ]; then
	files="$*"
else
	files=$(ls common/*.c common/output/*.c reader/*.c cli/*.c cli/cmd/*.c libutrace/*.c \
		libutrace/tracers/*.c arch/x86_64/*.c tracefs/*.c tests/unit/*.c tests/fuzz/*.c)
fi

# Same preprocessor view as the build (see BASE_CFLAGS in the Makefile).
INC="-D_GNU_SOURCE -Iinclude -I. -Iarch/x86_64 -Itests/unit -isystem /usr/include/fuse3"
status=0

echo "lint: cppcheck"
# shellcheck disable=SC2086 # word splitting of $files and $INC is intended
if ! "$CPPCHECK" --enable=warning,performance,portability --error-exitcode=1 \
	--inline-suppr --std=c11 --quiet -j "$JOBS" $INC $files; then
	status=1
fi

echo "lint: clang-tidy"
# One file per invocation, $JOBS at a time; xargs fails if any run does.
# Each run's output is printed in one piece (runs do not interleave), minus
# clang's "N warnings generated." tally (mostly system-header warnings that
# clang-tidy filters out anyway).
# shellcheck disable=SC2086,SC2016 # $0/$1 are for the inner sh, on purpose
if ! printf '%s\n' $files | xargs -P "$JOBS" -n 1 sh -c '
	out=$("$0" --quiet -warnings-as-errors="*" "$1" -- -std=gnu11 '"$INC"' 2>&1)
	rc=$?
	out=$(printf "%s\n" "$out" | grep -Ev "^[0-9]+ (warnings?|errors?)( and [0-9]+ errors?)? generated\.$")
	[ -z "$out" ] || printf "%s\n" "$out"
	exit $rc' "$CLANG_TIDY"; then
	status=1
fi

if [ $status -ne 0 ]; then
	echo "lint: FAILED" >&2
else
	echo "lint: clean"
fi
exit $status
