#!/bin/bash
# A stripped program (sites but no symbol table): a warning that says so, the
# program runs untraced with its own status; a filter is an error (nothing
# can match by name) and nothing runs.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1
	cp "$(prog single "$s")" stripped
	cp "$UT_PROGS/libtlib.$s.so" . # the rpath is $ORIGIN
	strip stripped
	"$UTRACE" record -o s.dat -- ./stripped >out 2>err
	expect_eq "$s stripped: status" 0 $?
	expect "$s stripped: output" out <<'EOF'
single 13
EOF
	grep -q "is stripped" err || fail "$s stripped: no warning: $(cat err)"
	"$UTRACE" record -l s_leaf -o s2.dat -- ./stripped >out 2>err
	expect_eq "$s stripped -l: status" 2 $?
	[ -s out ] && fail "$s stripped -l: the program ran"
	grep -q "s_leaf" err || fail "$s stripped -l: the error does not name the pattern"
}

for_styles one
finish
