#!/bin/bash
# One site finder (issue 16): for every test program in every style, the
# functions the runtime finds at start (written by the UTRACE_TEST_FUNCS
# hook: its available_filter_functions) are exactly what `utrace list -f`
# lists with -O nosym-demangle (the symbol table's names, as the runtime
# keeps them; its inlined marks aside).  They used to differ: the tools tested
# for nop bytes at each symbol, the runtime read the site lists, so e.g. the
# .cold parts of a -pg -mfentry build were listed but never patched.
# The plain builds (tests/progs/prologue) are compared with -O
# patch-prologue: their patched prologues are one set too, marked
# [prologue] in both.
. "$(dirname "$0")/../lib/common.sh"

n=0
for p in "$UT_PROGS"/*.*-*; do
	case $p in *.so | *.d) continue ;; esac
	[ -x "$p" ] || continue
	b=$(basename "$p")
	opt=()
	case $b in *-pie | *-nopie | *-pie-cf | *-nopie-cf) opt=(-O patch-prologue) ;; esac
	"$UTRACE" list "${opt[@]}" -O nosym-demangle -f "$p" 2>/dev/null |
		sed -e 's/ \[+[0-9]* inlined\]//' >"list.$b"
	rm -f funcs.*
	UTRACE_TEST_FUNCS=$PWD/funcs timeout 20 "$UTRACE" record -o "$b.dat" "${opt[@]}" -p function \
		-l main -- "$p" </dev/null >/dev/null 2>&1
	found=
	for f in funcs.*; do
		[ -e "$f" ] && cmp -s "$f" "list.$b" && found=1
	done
	if [ -z "$found" ]; then
		fail "$b: the runtime's functions differ from list -f"
		for f in funcs.*; do [ -e "$f" ] && diff -u "list.$b" "$f" | head -20; done
	fi
	rm -f "$b.dat"
	n=$((n + 1))
done
[ "$n" -gt 50 ] || fail "only $n programs checked"
finish
