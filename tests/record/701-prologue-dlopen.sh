#!/bin/bash
# -O patch-prologue and dlopen: a plain -O2 plugin loaded with dlopen gets
# its patched prologues before dlopen returns; `:mod:` selects its
# functions, counted exactly (7 plug_step, 1 plug_total) with function and
# function_graph; loaded and unloaded 20 times, each load patched anew.
. "$(dirname "$0")/../lib/common.sh"

# A graph report's calls, one line each: a leaf whose entry and exit a CPU
# switch printed apart ("f() {", the switch, "} /* f */") as the leaf it is.
calls() {
	grep -v '^#' | sed -E 's/^[^|]*\| //' | grep -vE '^ *\}' | sed -E 's/\(\) \{$/();/'
}

one() {
	local v=$1 p
	p=$(prog pdlopen "$v")
	record f.dat -O patch-prologue -p function -l ':mod:libpplug' -- "$p" ||
		fail "$v: record exited $?: $(cat f.dat.err)"
	expect "$v output" f.dat.out <<'EOF'
pdlopen 142041
EOF
	report f.dat | funcs | uniq -c | awk '{$1 = $1; print}' >f.txt
	expect "$v function" f.txt <<'EOF'
7 plug_step <-main
1 plug_total <-main
EOF
	record g.dat -O patch-prologue -p function_graph -g main -- "$p" ||
		fail "$v: graph exited $?: $(cat g.dat.err)"
	report g.dat | calls | grep plug_ | uniq -c | awk '{$1 = $1; print}' >g.txt
	expect "$v function_graph" g.txt <<'EOF'
7 plug_step [libpplug]();
1 plug_total [libpplug]();
EOF
	record c.dat -O patch-prologue -p function_graph -l ':mod:libpplug' -- "$p" 20 ||
		fail "$v: cycles exited $?: $(cat c.dat.err)"
	report c.dat | calls | sort | uniq -c | awk '{$1 = $1; print}' >c.txt
	expect "$v 20 dlopen/dlclose cycles" c.txt <<'EOF'
140 plug_step [libpplug]();
20 plug_total [libpplug]();
EOF
}

for v in gcc-pie gcc-nopie-cf clang-pie-cf clang-nopie; do
	one "$v"
done
no_crash ./*.err
finish
