#!/bin/bash
# -O patch-prologue: a program built plain -O2 (no sites) is traced through
# patched prologues, its calls counted exactly with function and
# function_graph: gcc and clang, PIE and not, with and without
# -fcf-protection (endbr64 first).  The moved bytes hold rip-relative
# operands (every function), a call (chain), a short branch (count_down);
# hash1 returns within 10 bytes: the short form (E a jump, its site in
# the slot), named in reports and trace-cmd's as any function; pick is a
# switch (an indirect jump through a jump table, PIC offsets or non-PIE
# addresses, notrack with -fcf-protection), whose table is read.
# Graph filters and notrace select them as any function.  Without the
# option, patched prologues are a plain program's default (said); with
# -O nopatch-prologue nothing of it is traceable.  asm_loop / tiny are
# refused with their reasons.
. "$(dirname "$0")/../lib/common.sh"

VARIANTS="gcc-pie gcc-nopie gcc-pie-cf gcc-nopie-cf clang-pie clang-nopie clang-pie-cf clang-nopie-cf"

graph_body() { grep -v '^#' | sed -E 's/^[^|]*\| //'; }

one() {
	local v=$1 p
	p=$(prog pcalls "$v")
	record f.dat -O patch-prologue -p function -- "$p" || fail "$v: record exited $?: $(cat f.dat.err)"
	expect "$v output" f.dat.out <<'EOF'
pcalls 8
EOF
	report f.dat | funcs >f.txt
	expect "$v function" f.txt <<'EOF'
main <-[libc]
scale <-main
mix <-main
mix <-main
mix <-main
mix <-main
mix <-main
chain <-main
scale <-chain
chain <-main
scale <-chain
count_down <-main
hash1 <-main
hash1 <-main
hash1 <-main
hash1 <-main
pick <-main
pick <-main
pick <-main
pick <-main
pick <-main
pick <-main
EOF
	record g.dat -O patch-prologue -p function_graph -- "$p" || fail "$v: graph exited $?"
	report g.dat | graph_body >g.txt
	expect "$v function_graph" g.txt <<'EOF'
 main() {
   scale();
   mix();
   mix();
   mix();
   mix();
   mix();
   chain() {
     scale();
   }
   chain() {
     scale();
   }
   count_down();
   hash1();
   hash1();
   hash1();
   hash1();
   pick();
   pick();
   pick();
   pick();
   pick();
   pick();
 }
EOF
	trace-cmd report -i g.dat 2>/dev/null | grep -c 'hash1();' >tc.txt
	expect "$v trace-cmd names the short form" tc.txt <<'EOF'
4
EOF
	record l.dat -O patch-prologue -p function -l 'mix' -l chain -- "$p" || fail "$v: -l exited $?"
	report l.dat | count_funcs >l.txt
	expect "$v -l mix -l chain" l.txt <<'EOF'
chain 2
mix 5
EOF
}

for v in $VARIANTS; do
	one "$v"
done

p=$(prog pcalls clang-pie-cf)
record gf.dat -O patch-prologue -p function_graph -g chain -- "$p" || fail "-g exited $?"
report gf.dat | graph_body >gf.txt
expect "-g chain" gf.txt <<'EOF'
 chain() {
   scale();
 }
 chain() {
   scale();
 }
EOF
record nt.dat -O patch-prologue -p function -n mix -n main -- "$p" || fail "-n exited $?"
report nt.dat | count_funcs >nt.txt
expect "-n mix -n main" nt.txt <<'EOF'
chain 2
count_down 1
hash1 4
pick 6
scale 3
EOF

p=$(prog pcalls gcc-pie)
"$UTRACE" list -O nopatch-prologue -f "$p" 2>/dev/null | grep -v '\[' >nolist.txt
expect "-O nopatch-prologue: no sites" nolist.txt </dev/null
for o in "-O patch-prologue" ""; do
	# shellcheck disable=SC2086 # the option, or none: a plain program's default
	"$UTRACE" list $o -f "$p" 2>/dev/null | grep -v ' \[[a-z]*\] ' | sort >list.txt
	expect "list -f ${o:-without -O}" list.txt <<'EOF'
chain [prologue]
count_down [prologue]
hash1 [prologue]
main [prologue]
mix [prologue]
pick [prologue]
scale [prologue]
EOF
done
"$UTRACE" list -f --untraceable "$p" >refused1.txt
"$UTRACE" list -f "$p" --untraceable | grep -v '^[^ ]* \[' >refused.txt
expect "list -f --untraceable" refused.txt <<'EOF'
_init  C runtime start-up code, not the program's
_start  an entry point not reached by a call
deregister_tm_clones  C runtime start-up code, not the program's
register_tm_clones  C runtime start-up code, not the program's
__do_global_dtors_aux  C runtime start-up code, not the program's
frame_dummy  C runtime start-up code, not the program's
asm_loop  a branch of its own lands in its first 5 bytes
tiny  shorter than the 5 bytes a patch needs
_fini  C runtime start-up code, not the program's
EOF
"$UTRACE" list -f "$p" --untraceable >refused2.txt
expect "list -f --untraceable PROGRAM, the option first" refused1.txt <refused2.txt
record d.dat -p function -l 'mix' -l chain -- "$p" || fail "no -O: record exited $?"
report d.dat | count_funcs >d.txt
expect "no -O: a plain program's default" d.txt <<'EOF'
chain 2
mix 5
EOF
sed "s|$p|PROG|" d.dat.err >d.txt
expect "no -O: the note" d.txt <<'EOF'
utrace: note: PROG has no compiler sites: its functions and its libraries' are traced through patched prologues (-O patch-prologue; -O nopatch-prologue: not)
EOF
record r.dat -O patch-prologue -p function -l tiny -l 'asm_*' -- "$p"
expect_eq "a filter naming refused functions" 2 $?
sed "s|$p|PROG|" r.dat.err >r.txt
expect "the reasons" r.txt <<'EOF'
utrace: set_ftrace_filter: 'tiny' matches no traceable function of PROG
  tiny: no patched prologue either: shorter than the 5 bytes a patch needs
EOF
no_crash ./*.err
finish
