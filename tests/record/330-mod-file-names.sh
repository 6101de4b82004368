#!/bin/bash
# record -l PAT:mod:MOD with the shared object's file name ("libtlib.so",
# "libtlib.so.1"): the module "libtlib", as the kernel-style name; a :mod:
# naming no library the program loads is not silent (a warning naming it);
# one that leaves no module name at all (".so") is refused, exit 2, and
# nothing runs (issue 10 item 6).
. "$(dirname "$0")/../lib/common.sh"

counts() {
	local s=$1 label=$2 d=f.dat
	shift 2
	record "$d" "$@" -- "$(prog shlib "$s")" || fail "$s $label: record exited $?: $(cat "$d.err")"
	no_crash "$d.err"
	report "$d" | count_funcs
}

one() {
	local s=$1
	counts "$s" ":mod:libtlib.so" -l ':mod:libtlib.so' >c.txt
	expect "$s -l :mod:libtlib.so" c.txt <<'EOF'
tlib_add 5
tlib_mul 1
EOF
	[ -s f.dat.err ] && fail "$s :mod:libtlib.so: stderr: $(cat f.dat.err)"
	counts "$s" "tlib_add:mod:libtlib.so.1" -l 'tlib_add:mod:libtlib.so.1' >c.txt
	expect "$s -l tlib_add:mod:libtlib.so.1" c.txt <<'EOF'
tlib_add 5
EOF
	counts "$s" "-n :mod:libtlib.so" -n ':mod:libtlib.so' >c.txt
	expect "$s -n :mod:libtlib.so" c.txt <<'EOF'
main 1
sh_local 1
EOF
	# a library the program does not load: said, and nothing traced
	counts "$s" ":mod:libnosuch.so" -l ':mod:libnosuch.so' >c.txt
	expect "$s -l :mod:libnosuch.so: nothing" c.txt </dev/null
	grep -q "warning: set_ftrace_filter: '\*:mod:libnosuch' names no library" f.dat.err ||
		fail "$s :mod:libnosuch.so: no warning: $(cat f.dat.err)"
	record g.dat -l ':mod:.so' -- "$(prog shlib "$s")"
	expect_eq "$s :mod:.so: status" 2 $?
	grep -q "':mod:.so' matches no traceable function" g.dat.err ||
		fail "$s :mod:.so: message: $(cat g.dat.err)"
	[ -s g.dat.out ] && fail "$s :mod:.so: the program ran"
}

for_styles one
finish
