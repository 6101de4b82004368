#!/bin/sh
# make demo: trace the bundled example with the function tracer and print it.
set -e
B=${1:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "== utrace record -p function -n parse_noise -o trace.dat -- examples/demo"
"$B/utrace" record -p function -n parse_noise -o "$OUT/trace.dat" -- "$B/examples/demo"
echo
echo "== utrace report"
"$B/utrace" report -i "$OUT/trace.dat"
if command -v trace-cmd >/dev/null 2>&1; then
	echo
	echo "== trace-cmd report (the same file, read by Debian's trace-cmd)"
	trace-cmd report "$OUT/trace.dat" 2>/dev/null | tail -n +2
fi
