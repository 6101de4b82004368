#!/bin/bash
# The program's own SIGTRAP handler keeps working under utrace (utrace's
# int3 handler chains to it), while sites are patched in other threads.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 P
	P=$(prog sigtrap "$s")
	"$P" >plain.out 2>&1
	"$UTRACE" record -p function -o t.dat -- "$P" >rec.out 2>rec.err
	expect_eq "$s sigtrap: status" 0 $?
	expect "$s sigtrap: untraced" plain.out <<'EOF'
handler installed: 1
traps 20
EOF
	expect "$s sigtrap: traced" rec.out <<'EOF'
handler installed: 1
traps 20
EOF
	report t.dat >r.txt || fail "$s sigtrap: report"
	no_crash t.dat.rerr
}

for_styles one
finish
