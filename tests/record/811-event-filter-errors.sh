#!/bin/bash
# record -f errors (issue 13 item 4): a filter that does not parse exits 2
# before the program runs, with the kernel's report (the filter, a caret
# under the fault, parse_error: MESSAGE); -f without an -e before it is
# refused; the probe whose format it is read against is named.
. "$(dirname "$0")/../lib/common.sh"

P=$(prog usdt gcc-pfe)
bad() {
	local label=$1 filter=$2
	record e.dat -e utest:pair -f "$filter" -- "$P" 2
	expect_eq "$label: exit status" 2 "$?"
	[ -s e.dat.out ] && fail "$label: the program ran"
	sed 's/^utrace: //' e.dat.err >e.txt
	expect "$label" e.txt
}
bad "a value missing" 'arg1 >' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
arg1 >
      ^
parse_error: Invalid value (did you forget quotes)?
EOF
bad "no such field" 'nosuch == 1' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
nosuch == 1
       ^
parse_error: Field not found
EOF
bad "a string for a number" 'arg1 == "x"' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
arg1 == "x"
         ^
parse_error: Expecting numeric field
EOF
bad "a number for a string" 'comm == 3' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
comm == 3
         ^
parse_error: Expecting string field
EOF
bad "a glob on a number" 'arg1 ~ 3' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
arg1 ~ 3
        ^
parse_error: Illegal operation for field type
EOF
bad "an operator that is none" 'arg1 =< 3' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
arg1 =< 3
      ^
parse_error: Invalid operator
EOF
bad "a ) too many" 'arg1 == 1)' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
arg1 == 1)
         ^
parse_error: Too few '('
EOF
bad "a quote open" 'comm == "x' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
comm == "x
        ^
parse_error: Missing matching quote
EOF
bad "two terms without && or ||" 'arg1 == 1 arg2 == 2' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
arg1 == 1 arg2 == 2
          ^
parse_error: Too many terms in predicate expression
EOF
bad "a negative unsigned value" 'common_type == -1' <<'EOF'
-f: the filter of utest:pair does not parse (Invalid argument):
common_type == -1
                ^
parse_error: Illegal integer value
EOF
record e.dat -f 'arg1 == 1' -e utest:pair -- "$P" 2
expect_eq "-f before any -e: exit status" 2 "$?"
expect "-f before any -e" e.dat.err <<'EOF'
utrace: -f 'arg1 == 1': a filter is for the events of the -e before it (-e EVENT -f FILTER)
EOF
finish
