#!/bin/bash
# -O patch-prologue on stripped programs (issue 14 item 1): without
# .symtab, the functions .dynsym names (a -rdynamic build exports them)
# are patched, their calls counted exactly; the code of the functions it
# does not name (static ones) is known from the .eh_frame FDEs, which are
# swept for branches into the moved bytes.  Functions only an FDE knows
# have no name and are not offered (docs/architecture.md).  A stripped
# program without .eh_frame cannot be checked: it runs untraced, and both
# the runtime and `list -f --untraceable` say why.
. "$(dirname "$0")/../lib/common.sh"
command -v gcc >/dev/null || skip "no gcc"
command -v strip >/dev/null && command -v objcopy >/dev/null || skip "no binutils"

cat >exp.c <<'C'
#include <stdio.h>
#include <stdlib.h>
volatile int sink;
/* static: only .eh_frame knows it once stripped */
__attribute__((noinline)) static int hidden_twice(int x)
{
	for (int i = 0; i < 2; i++)
		sink += x * i;
	return sink;
}
__attribute__((noinline)) int exp_mix(int a, int b)
{
	int s = 0;

	for (int i = 0; i < a; i++)
		s += hidden_twice(i) ^ b;
	sink = s;
	return s;
}
__attribute__((noinline)) int exp_outer(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += exp_mix(i % 4 + 1, n);
	sink = s;
	return s;
}
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int k = 0; k < 2; k++)
		exp_outer(n);
	printf("done %d\n", n);
	return 0;
}
C
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	$cc -O2 -rdynamic -o exp.$cc exp.c || fail "$cc"
	strip -o exp.$cc.stripped exp.$cc || fail "strip"
	objcopy --remove-section .eh_frame exp.$cc.stripped exp.$cc.noeh || fail "objcopy"
	p=./exp.$cc.stripped
	"$UTRACE" list -O patch-prologue -f "$p" 2>/dev/null | sort >list.txt
	expect "$cc: stripped, the exported functions" list.txt <<'X'
exp_mix [prologue]
exp_outer [prologue]
main [prologue]
X
	record s.dat -O patch-prologue -p function -- "$p" 5 || fail "$cc: record exited $?: $(cat s.dat.err)"
	expect_eq "$cc: output" "done 5" "$(cat s.dat.out)"
	report s.dat | count_funcs >s.txt
	expect "$cc: stripped, counted exactly" s.txt <<'X'
exp_mix 10
exp_outer 2
main 1
X
	p=./exp.$cc.noeh
	expect_eq "$cc: runs" "done 2" "$("$p" 2)"
	record n.dat -O patch-prologue -p function -- "$p" 2
	expect_eq "$cc: no .eh_frame: runs untraced" "done 2" "$(cat n.dat.out)"
	report n.dat | events >n.txt
	expect "$cc: no .eh_frame: no event" n.txt </dev/null
	grep -F "utrace: $PWD/exp.$cc.noeh: " n.dat.err >n.err
	expect "$cc: no .eh_frame: the runtime says why" n.err <<X
utrace: $PWD/exp.$cc.noeh: stripped, without a .eh_frame it can read: no function of it can be checked for a patched prologue, none is traced
X
	"$UTRACE" list -f "$p" --untraceable 2>/dev/null | grep exp_ | sort >u.txt
	expect "$cc: no .eh_frame: list -f --untraceable says why" u.txt <<'X'
exp_mix  stripped, without a readable .eh_frame: the code around it is unknown
exp_outer  stripped, without a readable .eh_frame: the code around it is unknown
X
done
finish
