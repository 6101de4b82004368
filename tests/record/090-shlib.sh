#!/bin/bash
# Functions of a shared library the program links (libtlib) are traced with
# their callers; `utrace list -f` names them with their library.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=l.dat
	record "$d" -- "$(prog shlib "$s")" || fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<'EOF'
shlib 3 12 7
EOF
	report "$d" | funcs >f.txt
	expect "$s trace" f.txt <<'EOF'
main <-[libc]
tlib_add <-main
tlib_mul <-main
tlib_add <-tlib_mul
tlib_add <-tlib_mul
tlib_add <-tlib_mul
tlib_add <-tlib_mul
sh_local <-main
EOF
	"$UTRACE" list -f "$(prog shlib "$s")" 2>list.err | sort >list.txt || fail "$s: list -f exited $?"
	expect "$s list -f" list.txt <<EOF
main
sh_local
tlib_add [libtlib]
tlib_mul [libtlib]
EOF
	no_crash "$d.err" "$d.rerr" list.err
}

for_styles one
finish
