#!/bin/sh
# make demo: trace the bundled example with function_graph and with the
# function tracer, and print both as the kernel would.
set -e
B=${1:-build}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
echo "== utrace record -p function_graph -o trace.dat -- examples/demo"
"$B/utrace" record -p function_graph -o "$OUT/trace.dat" -- "$B/examples/demo"
echo
echo "== utrace report"
"$B/utrace" report -i "$OUT/trace.dat"
echo
echo "== utrace record -p function -l 'parse_*' -n parse_noise -- examples/demo; utrace report"
"$B/utrace" record -p function -l 'parse_*' -n parse_noise -o "$OUT/fn.dat" -- "$B/examples/demo" >/dev/null
"$B/utrace" report -i "$OUT/fn.dat"
if command -v trace-cmd >/dev/null 2>&1; then
	echo
	echo "== trace-cmd report (the same file, read by Debian's trace-cmd)"
	trace-cmd report "$OUT/fn.dat" 2>/dev/null | tail -n +2
fi
