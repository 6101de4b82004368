#!/bin/bash
# Return values travel from the exit hook through the ring into trace.dat's
# funcgraph_exit (the kernel's layout with CONFIG_FUNCTION_GRAPH_RETVAL:
# `unsigned long retval` at offset 16), so that `report -O funcgraph-retval`
# prints them as the kernel does (SPEC §13: small negative errnos in
# decimal, the rest in hex; funcgraph-retval-hex: all hex) and trace-cmd
# reads the field.  Durations and CPUs are masked.
. "$(dirname "$0")/../lib/common.sh"

# the graph lines without CPU and duration columns: "  func(); /* ret=... */"
body() { grep -v '^#' | sed -E 's/^[^|]*\|//'; }

one() {
	local s=$1 d=rv.$1.dat
	echo "call 0" | record "$d" -p function_graph -l 'rv_*' -- "$(prog retval "$s")" ||
		fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<'EOF2'
called 0 -367
EOF2
	report "$d" -O funcgraph-retval | body >"$d.txt"
	expect "$s funcgraph-retval" "$d.txt" <<'EOF2'
  rv_outer() {
    rv_eio(); /* ret=-5 */
    rv_einval(); /* ret=-22 */
    rv_hex(); /* ret=0x1234 */
    rv_far(); /* ret=0xffffffffffffec78 */
    rv_zero(); /* ret=0x0 */
  } /* rv_outer ret=-367 */
EOF2
	report "$d" -O funcgraph-retval -O funcgraph-retval-hex | body >"$d.hex"
	expect "$s funcgraph-retval-hex" "$d.hex" <<'EOF2'
  rv_outer() {
    rv_eio(); /* ret=0xfffffffb */
    rv_einval(); /* ret=0xffffffffffffffea */
    rv_hex(); /* ret=0x1234 */
    rv_far(); /* ret=0xffffffffffffec78 */
    rv_zero(); /* ret=0x0 */
  } /* rv_outer ret=0xfffffffffffffe91 */
EOF2
	no_crash "$d.err" "$d.rerr"
	command -v trace-cmd >/dev/null || return
	# trace-cmd 3.1's graph plugin prints no return values; its raw
	# output shows the field read by name from the format in the file
	trace-cmd report -R "$d" 2>"$d.tcerr" | grep funcgraph_exit |
		sed -E 's/^.*funcgraph_exit: +//; s/ calltime=.*//' >"$d.tc"
	expect "$s trace-cmd -R" "$d.tc" <<'EOF2'
func=rv_eio retval=fffffffb depth=1 overrun=0
func=rv_einval retval=ffffffffffffffea depth=1 overrun=0
func=rv_hex retval=1234 depth=1 overrun=0
func=rv_far retval=ffffffffffffec78 depth=1 overrun=0
func=rv_zero retval=0 depth=1 overrun=0
func=rv_outer retval=fffffffffffffe91 depth=0 overrun=0
EOF2
	expect "$s trace-cmd stderr" "$d.tcerr" </dev/null
}

for_styles one

# The ring's two forms of a leaf's exit (docs/shm-abi.md): a return value
# its low 32 bits extend (the ones above) takes 16 bytes, any other the
# full 32; both print the whole value
echo "wide 1" | record w.dat -p function_graph -l 'rv_*' -- "$(prog retval gcc-pfe)" ||
	fail "wide: record exited $?: $(cat w.dat.err)"
expect "wide stdout" w.dat.out <<'EOF2'
wide 1 80334977180
EOF2
report w.dat -O funcgraph-retval | body >w.txt
expect "wide funcgraph-retval" w.txt <<'EOF2'
  rv_wide(); /* ret=0x123456789b */
  rv_u32(); /* ret=0x80000001 */
EOF2
no_crash w.dat.err w.dat.rerr
finish
