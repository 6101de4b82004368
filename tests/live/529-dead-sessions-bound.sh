#!/bin/bash
# Dead processes' sessions are kept only while their data may be wanted
# (issue 17, item 2; docs/shm-abi.md, Dead processes): a process starting
# in the shared run-time directory keeps the dead sessions that hold data
# newest first up to 256 MiB of buffers and removes the older ones, and
# those that hold nothing; `utrace ps` shows what each holds.  Five dead
# processes of one 64 MiB buffer each (sparse: they cost nothing here),
# then a sixth process starts: the three newest stay, the two oldest go.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

P=$(prog threadchurn gcc-pfe)
sess() { ls run | grep -E '^[0-9]+\.[0-9]+$' | sort -t. -k2 -n; }
rm -rf run
check "start" "$UTRACE" start -p function -l c_work -b 65536
for ((k = 0; k < 5; k++)); do
	LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 1 1 >/dev/null || fail "program $k exited $?"
done
sess >before.txt
expect_eq "five dead sessions" 5 "$(wc -l <before.txt)"
"$UTRACE" ps | awk 'NR > 1 {print $6, $7}' | sort | uniq -c >ps.txt
expect "ps: what each holds" ps.txt <<'EOF'
      5 65540 exited
EOF
# a collection runs at most once a second: the last one is made older
touch -d '2 seconds ago' run/.gc
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 1 1 >/dev/null || fail "sixth program exited $?"
sess >after.txt
tail -3 before.txt >want.txt
head -3 after.txt >kept.txt
expect "the three newest dead sessions kept" kept.txt <want.txt
expect_eq "and the sixth's" 4 "$(wc -l <after.txt)"
finish
