#!/bin/bash
# String arguments of USDT probes (issue 13 item 1): a description
# (tests/usdt/utest.usdt, found through UTRACE_USDT_DIR by the runtime and
# the tools alike) names the arguments and says which point to strings;
# the event records their text as the kernel records strings (__data_loc
# char[]), report prints name="text", a pointer that cannot be read
# records (fault) and the program goes on (tests/progs/usdt_str.c: a
# near-null pointer, a page without access, and a string that ends on the
# last byte before such a page, which is read); trace-cmd reads the
# fields; filters compare the strings (==, !=, ~ globs).
. "$(dirname "$0")/../lib/common.sh"

UTRACE_USDT_DIR=$UT_TESTS/usdt
export UTRACE_USDT_DIR

"$UTRACE" list -e "$(prog usdt_str gcc-pfe)" | sed -E 's/ +[-0-9]+@[^ ]+//g' | grep '^utest_str:' >list.txt
expect "list -e: the described fields" list.txt <<'EOF'
utest_str:word  fields: word:string len
utest_str:two  fields: good:string bad:string n
EOF

one() {
	local s=$1 d=str.$1.dat
	record "$d" -e 'utest_str:*' -- "$(prog usdt_str "$s")" 4 || fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<'EOF'
rounds 4
EOF
	report "$d" | funcs >"$d.txt"
	expect "$s events" "$d.txt" <<'EOF'
word: word="parse_args" len=10
two: good="parse_args" bad=(fault) n=0
word: word="parse_line" len=10
two: good="parse_line" bad=(fault) n=1
word: word="main_loop" len=9
two: good="main_loop" bad="edge" n=2
word: word="cleanup" len=7
two: good="cleanup" bad=(fault) n=3
EOF
}
STYLES="gcc-pfe clang-pfe" for_styles one

d=str.gcc-pfe.dat
if command -v trace-cmd >/dev/null; then
	trace-cmd report "$d" 2>/dev/null | grep -E ': (word|two):' |
		sed -E 's/^.*[0-9]+\.[0-9]+: ([a-z]+): +/\1: /' >tc.txt
	expect "trace-cmd report: the fields" tc.txt <<'EOF'
word: word="parse_args" len=10
two: good="parse_args" bad="" n=0
word: word="parse_line" len=10
two: good="parse_line" bad="" n=1
word: word="main_loop" len=9
two: good="main_loop" bad="edge" n=2
word: word="cleanup" len=7
two: good="cleanup" bad="" n=3
EOF
fi

# string filters, judged in the program on the text it recorded
P=$(prog usdt_str gcc-pfe)
while IFS='|' read -r want filter; do
	record f.dat -e utest_str:two -f "$filter" -- "$P" 4 ||
		{ fail "-f '$filter': record exited $?: $(cat f.dat.err)"; continue; }
	expect_eq "-f '$filter'" "$want" "$(echo $(report f.dat | events | sed -nE 's/^.* n=([0-9]+)$/\1/p'))"
done <<'EOF'
0|good == "parse_args"
1 2 3|good != "parse_args"
0 1|good ~ "parse*"
1|good ~ "*_*e*"
3|good ~ "*up"
1 2|good ~ "*in*"
0 1|good ~ "p?rse_[a-l]*"
2 3|good ~ "!parse*"
0 1 3|bad == ""
2|bad == "edge" && n == 2
EOF
record f.dat -e utest_str:two -f 'good > 3' -- "$P" 4
expect_eq "a number for a string: exit status" 2 "$?"
expect_eq "a number for a string" "parse_error: Expecting string field" "$(tail -n 1 f.dat.err)"

# without a description the arguments are numbers, argN
UTRACE_USDT_DIR=/nonexistent record n.dat -e utest_str:word -- "$P" 1 || fail "record without descriptions exited $?"
UTRACE_USDT_DIR=/nonexistent report n.dat | funcs | sed -E 's/arg1=[0-9]+/arg1=<PTR>/' >n.txt
expect "no description" n.txt <<'EOF'
word: arg1=<PTR> arg2=10
EOF
finish
