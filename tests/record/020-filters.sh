#!/bin/bash
# -l / -n filters (set_ftrace_filter / set_ftrace_notrace): names, x*, *x,
# *x*, !pat, several patterns, notrace winning over filter, :mod:LIB.
. "$(dirname "$0")/../lib/common.sh"

# counts STYLE PROG LABEL [RECORD-OPTIONS...]: per-function counts to stdout.
counts() {
	local s=$1 p=$2 label=$3 d=f.dat
	shift 3
	record "$d" "$@" -- "$(prog "$p" "$s")" || fail "$s $label: record exited $?: $(cat "$d.err")"
	no_crash "$d.err"
	report "$d" | count_funcs
}

one() {
	local s=$1
	counts "$s" single "-l s_*" -l 's_*' >c.txt
	expect "$s -l s_*" c.txt <<'EOF'
s_leaf 7
s_middle 3
s_top 1
EOF
	counts "$s" single "-l *leaf" -l '*leaf' >c.txt
	expect "$s -l *leaf" c.txt <<'EOF'
s_leaf 7
EOF
	counts "$s" single "-l *mid*" -l '*mid*' >c.txt
	expect "$s -l *mid*" c.txt <<'EOF'
s_middle 3
EOF
	counts "$s" single "-l main -l s_top" -l main -l s_top >c.txt
	expect "$s -l main -l s_top" c.txt <<'EOF'
main 1
s_top 1
EOF
	counts "$s" single "-l s_* -l !s_leaf" -l 's_*' -l '!s_leaf' >c.txt
	expect "$s -l s_* -l !s_leaf" c.txt <<'EOF'
s_middle 3
s_top 1
EOF
	counts "$s" single "-n s_leaf" -n s_leaf >c.txt
	expect "$s -n s_leaf" c.txt <<'EOF'
main 1
s_middle 3
s_top 1
EOF
	counts "$s" single "-n *_*" -n '*_*' >c.txt
	expect "$s -n *_*" c.txt <<'EOF'
main 1
EOF
	counts "$s" single "-l s_* -n s_middle" -l 's_*' -n s_middle >c.txt
	expect "$s -l s_* -n s_middle" c.txt <<'EOF'
s_leaf 7
s_top 1
EOF
	# Parents are real callers even when they are not traced.
	record f.dat -l s_leaf -- "$(prog single "$s")"
	report f.dat | funcs >c.txt
	expect "$s -l s_leaf lines" c.txt <<'EOF'
s_leaf <-s_middle
s_leaf <-s_middle
s_leaf <-s_middle
s_leaf <-s_middle
s_leaf <-s_middle
s_leaf <-s_middle
s_leaf <-main
EOF
	# Modules: a shared library's functions are "name [lib]".
	counts "$s" shlib ":mod:libtlib" -l ":mod:libtlib" >c.txt
	expect "$s -l :mod:libtlib" c.txt <<'EOF'
tlib_add 5
tlib_mul 1
EOF
	counts "$s" shlib ":mod:libtlib*" -l ':mod:libtlib*' >c.txt
	expect "$s -l :mod:libtlib*" c.txt <<'EOF'
tlib_add 5
tlib_mul 1
EOF
	counts "$s" shlib "tlib_add:mod:libtlib*" -l 'tlib_add:mod:libtlib*' >c.txt
	expect "$s -l tlib_add:mod:libtlib*" c.txt <<'EOF'
tlib_add 5
EOF
	counts "$s" shlib "-n :mod:libtlib*" -n ':mod:libtlib*' >c.txt
	expect "$s -n :mod:libtlib*" c.txt <<'EOF'
main 1
sh_local 1
EOF
	counts "$s" shlib "-l *_*" -l '*_*' >c.txt
	expect "$s shlib -l *_*" c.txt <<'EOF'
sh_local 1
tlib_add 5
tlib_mul 1
EOF
	# The program's stdout is untouched by filtering.
	expect "$s shlib stdout" f.dat.out <<'EOF'
shlib 3 12 7
EOF
}

for_styles one
finish
