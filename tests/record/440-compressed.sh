#!/bin/bash
# record writes trace.dat version 7 with zstd-compressed sections by default.
# trace-cmd reads it; `utrace report` and `trace-cmd report` print exactly
# what they print for the same events uncompressed (trace-cmd convert writes
# them as version 6); it is small: at most 16 bytes per call for
# function_graph and 8 for function on a fixed program; --no-compress writes
# version 6; a damaged or cut compressed chunk is an error naming the file
# and the offset (exit 1), after the events before it.
. "$(dirname "$0")/../lib/common.sh"

command -v trace-cmd >/dev/null || skip "trace-cmd is not installed"
S=${STYLES%% *}
P=$(prog callmany "$S")
calls=57314 # cm_fib(22) and main

version() { head -c 11 "$1" | tail -c 1; }
tc_events() { trace-cmd report "$1" 2>&1 | grep -v '^cpus=\|version\|compress'; }

for t in function function_graph; do
	record $t.dat -p $t -- "$P" 22 || fail "$t: record exited $?: $(cat $t.dat.err)"
	grep -v 'events lost' $t.dat.err | has . && fail "$t: record said: $(cat $t.dat.err)"
	expect_eq "$t: file version" 7 "$(version $t.dat)"
	head -c 64 $t.dat | has -a zstd || fail "$t: no zstd in the header"
	trace-cmd convert --file-version 6 --compression none -i $t.dat -o $t.v6.dat 2>/dev/null ||
		fail "$t: trace-cmd convert failed"
	expect_eq "$t: converted version" 6 "$(version $t.v6.dat)"
	report $t.dat >a.txt || fail "$t: report exited $?: $(cat $t.dat.rerr)"
	report $t.v6.dat >b.txt || fail "$t: report of the version 6 copy exited $?"
	[ "$(events <a.txt | wc -l)" -ge $calls ] || fail "$t: $(events <a.txt | wc -l) lines"
	cmp -s a.txt b.txt || fail "$t: report differs from the uncompressed file's: $(diff a.txt b.txt | head -n 4)"
	tc_events $t.dat >c.txt
	tc_events $t.v6.dat >d.txt
	grep -q 'cm_fib' c.txt || fail "$t: trace-cmd shows no cm_fib: $(head -n 3 c.txt)"
	cmp -s c.txt d.txt || fail "$t: trace-cmd report differs: $(diff c.txt d.txt | head -n 4)"
done

# every call, through the spill path too (a writer behind: spool files,
# pieces of data taken mid-page; UTRACE_TEST_SPILL spills from the start)
for spill in "" 1; do
	UTRACE_TEST_SPILL=$spill record sp.dat -b 8192 -p function_graph -- "$P" 22 ||
		fail "spill '$spill': record exited $?"
	expect_eq "spill '$spill': entries and exits" "$calls 28657" \
		"$(trace-cmd report sp.dat 2>/dev/null | awk '/funcgraph_entry/{e++} /funcgraph_exit/{x++} END{print e, x}')"
done

# bytes per call (a size, not a time)
size=$(stat -c %s function_graph.dat)
[ "$size" -le $((16 * calls)) ] || fail "function_graph: $size bytes for $calls calls (> 16 per call)"
size=$(stat -c %s function.dat)
[ "$size" -le $((8 * calls)) ] || fail "function: $size bytes for $calls calls (> 8 per call)"

# --no-compress: version 6, as before
record v6.dat --no-compress -p function -- "$P" 10 || fail "--no-compress: record exited $?"
expect_eq "--no-compress: file version" 6 "$(version v6.dat)"
report v6.dat >v6.txt
grep -q cm_fib v6.txt || fail "--no-compress: no cm_fib in the report: $(head -c 300 v6.txt) $(cat v6.dat.err v6.dat.rerr)"

# a file cut short (the options and metadata come last, after the data):
# one error naming the file and what is missing, exit 1, never a crash; a
# file whose writer never finished (options offset 0) says so
size=$(stat -c %s function_graph.dat)
head -c $((size / 2)) function_graph.dat >cut.dat
"$UTRACE" report -i cut.dat >cut.out 2>cut.err
expect_eq "cut: exit status" 1 "$?"
grep -q 'cut.dat: corrupt options section at offset 0x[0-9a-f]*: section past the end of the file' cut.err ||
	fail "cut: error: $(cat cut.err)"
no_crash cut.err
cp function_graph.dat unfinished.dat
printf '\0\0\0\0\0\0\0\0' | dd of=unfinished.dat bs=1 seek=$(($(grep -abo zstd unfinished.dat | head -1 | cut -d: -f1) + 5 + $(zstd --version | grep -o 'v[0-9.]*' | tr -d v | wc -c))) conv=notrunc 2>/dev/null
"$UTRACE" report -i unfinished.dat >unf.out 2>unf.err
expect_eq "unfinished: exit status" 1 "$?"
grep -q 'unfinished.dat' unf.err || fail "unfinished: error: $(cat unf.err)"
no_crash unf.err

# a damaged frame in the middle: an error naming the chunk, never a crash
cp function_graph.dat bad.dat
printf '\xff\xff\xff\xff\xff\xff\xff\xff' | dd of=bad.dat bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
"$UTRACE" report -i bad.dat >bad.out 2>bad.err
expect_eq "damaged: exit status" 1 "$?"
grep -q 'bad.dat: corrupt page at offset 0x[0-9a-f]*: ' bad.err ||
	fail "damaged: error: $(cat bad.err)"
no_crash bad.err
finish
