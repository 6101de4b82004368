#!/bin/bash
# One set of library calls (issue 14): for every test program (two
# styles), the functions the runtime finds at start with -O plt (written by
# the UTRACE_TEST_FUNCS hook) are exactly what `utrace list -O plt -f`
# lists, library calls included, marked [plt] in both: the tools resolve
# each GOT reference as the runtime does -- the first object defining the
# function, its default version, IFUNCs named by their symbol, the
# runtime's own wrappers and libraries left out.
. "$(dirname "$0")/../lib/common.sh"

n=0
for p in "$UT_PROGS"/*.gcc-pfe "$UT_PROGS"/*.clang-fentry; do
	case $p in *.so | *.d) continue ;; esac
	[ -x "$p" ] || continue
	b=$(basename "$p")
	"$UTRACE" list -O nosym-demangle -O plt -f "$p" 2>/dev/null |
		sed -e 's/ \[+[0-9]* inlined\]//' >"list.$b"
	grep -q . "list.$b" || continue
	rm -f funcs.*
	UTRACE_TEST_FUNCS=$PWD/funcs timeout 20 "$UTRACE" record -O plt -o "$b.dat" -p function -l main \
		-- "$p" </dev/null >/dev/null 2>&1
	found=
	for f in funcs.*; do
		[ -e "$f" ] && cmp -s "$f" "list.$b" && found=1
	done
	if [ -z "$found" ]; then
		fail "$b: the runtime's functions differ from list -f -O plt"
		for f in funcs.*; do [ -e "$f" ] && diff -u "list.$b" "$f" | head -20; done
	fi
	grep -q '^malloc \[libc\] \[plt\]$' "list.$b" || grep -q '^puts \[libc\] \[plt\]$' "list.$b" ||
		fail "$b: no library call listed"
	rm -f "$b.dat"
	n=$((n + 1))
done
[ "$n" -gt 20 ] || fail "only $n programs checked"
finish
