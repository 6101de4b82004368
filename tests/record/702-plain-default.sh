#!/bin/bash
# A Debian program as it is shipped (xz: stripped, no sites; liblzma plain):
# `utrace record -p function_graph -- xz -k FILE` with no option traces
# liblzma's functions through patched prologues (its .dynsym names), says
# so in one note, and xz works as untraced; `list -f xz` lists them, each
# marked [prologue], and `list -f --untraceable xz` why the others are
# refused.  -O nopatch-prologue keeps the old behaviour: nothing traced; a
# shell that runs xz is left alone (a runner, not the program meant).
. "$(dirname "$0")/../lib/common.sh"

XZ=$(command -v xz) || skip "no xz here (Debian's xz-utils)"
seq 1 20000 >big.txt
record g.dat -p function_graph -- "$XZ" -k big.txt || fail "record exited $?: $(cat g.dat.err)"
sed "s|$XZ|XZ|" g.dat.err >note.txt
expect "the note" note.txt <<'EOF'
utrace: note: XZ has no compiler sites: its functions and its libraries' are traced through patched prologues (-O patch-prologue; -O nopatch-prologue: not)
EOF
xz -dc big.txt.xz | cmp -s - big.txt || fail "xz's output, traced, does not decompress to its input"
report g.dat | grep -v '^#' | sed -E 's/^[^|]*\| *//' >g.txt
for f in 'lzma_stream_encoder [liblzma]() {' 'lzma_code [liblzma]() {' 'lzma_crc32 [liblzma]()'; do
	grep -qF -- "$f" g.txt || fail "no '$f' in the graph: $(head -n 5 g.txt)"
done
# every entry has its exit: as many '{' as '}' lines
expect_eq "the graph's braces balance" "$(grep -c '{$' g.txt)" "$(grep -c '^}' g.txt)"

"$UTRACE" list -f "$XZ" >list.txt 2>list.err || fail "list -f exited $?"
grep -qx 'lzma_code \[liblzma\] \[prologue\]' list.txt || fail "list -f: no lzma_code: $(head -n 3 list.txt)"
grep -v ' \[prologue\]$' list.txt >other.txt
expect "list -f: every function through a patched prologue" other.txt </dev/null
"$UTRACE" list -f --untraceable "$XZ" >why.txt || fail "list -f --untraceable exited $?"
[ -s why.txt ] || fail "list -f --untraceable listed nothing"

# a shell running it is a runner: not patched, nor is what it runs (one
# configuration for all), and no note
rm -f big.txt.xz
record s.dat -p function -- bash -c "$XZ -k big.txt"
report s.dat | events >s.txt
expect "bash -c: nothing traced" s.txt </dev/null
grep -q "note:" s.dat.err && fail "bash -c: a note: $(cat s.dat.err)"

rm -f big.txt.xz
record n.dat -O nopatch-prologue -p function_graph -- "$XZ" -k big.txt
report n.dat | events >n.txt
expect "-O nopatch-prologue: nothing traced" n.txt </dev/null
grep -q "has no patchable functions" n.dat.err || fail "-O nopatch-prologue: no warning: $(cat n.dat.err)"

# a program with sites calling into a plain library: the library is not
# patched by default (the program's sites are what its user chose), and a
# word naming a function of it (one no PLT call reaches) says how to trace it
if command -v gcc >/dev/null; then
	printf '%s\n' '__attribute__((noinline, visibility("hidden"))) int plib_helper(const char *s) { int n = 0; for (int k = 0; s[k]; k++) n += s[k] * (k + 1); return n; }' \
		'int plib_fn(const char *s) { return plib_helper(s) + 1; }' >plib.c
	printf '%s\n' '#include <stdio.h>' 'int plib_fn(const char *);' \
		'int main(int c, char **v) { printf("%d\n", plib_fn(v[c - 1])); return 0; }' >sprog.c
	gcc -O2 -shared -fPIC -o libplib.so plib.c || fail "gcc lib"
	gcc -O2 -fpatchable-function-entry=5 -o sprog sprog.c -L. -lplib -Wl,-rpath,"$PWD" || fail "gcc prog"
	record w.dat -p function -l plib_helper -- ./sprog abc
	expect_eq "a plain library's function, not patched: refused" 2 $?
	sed "s|$PWD|DIR|g" w.dat.err >w.txt
	expect "the reason says how to trace it" w.txt <<'EOF'
utrace: set_ftrace_filter: 'plib_helper' matches no traceable function of ./sprog
  plib_helper lives in the shared library DIR/libplib.so, built without sites (only code built with -fpatchable-function-entry=5 or -pg -mfentry has them; -O patch-prologue, or options/patch-prologue in the mount, traces it through a patched prologue; -O plt traces the calls other objects make to it)
EOF
	record w.dat -O patch-prologue -p function -l plib_helper -- ./sprog abc ||
		fail "-O patch-prologue: record exited $?: $(cat w.dat.err)"
	report w.dat | funcs >w.txt
	expect "-O patch-prologue: the library's function" w.txt <<<"plib_helper <-plib_fn"
fi
no_crash ./*.err
finish
