#!/bin/bash
# -O inlined (issue 16, part 4): every inlined instance's entry becomes a
# site, for every compiler and style of tests/progs/inl_cases.c and
# inl_edge.c.  The function tracer prints an inlined call like any call,
# its parent the function it sits in, and counts equal the calls in the
# source (inl_cases.c's comment): the trap's ip_local_out 15 (10 inlined +
# 5 through its copy), inl_scale 2 (no copy), nested inl_outer/inl_inner,
# inl_step 3 in one caller; function_graph prints a leaf line without a
# duration marked /* inlined */, nested one level deeper per inlined body
# around it, a graph filter, notrace or a function command naming the
# inlined function selects its instances, and trace-cmd reads the file; the profiler counts the hits in
# the function's row.  inl_edge: a leaf whose locals sit in the red zone
# computes the same sum traced (the slot steps below the red zone), a loop
# that jumps back to the instance counts each pass, and an instance that
# cannot be patched (a ret within the 5 bytes) is refused alone, with its
# reason.  Without -O inlined none of this is traced (record/600).
. "$(dirname "$0")/../lib/common.sh"

# "function <-parent N" for each pair, sorted
inl_funcs() { events | sed -E 's/^.*[0-9]+\.[0-9]{6}: //' | LC_ALL=C sort | uniq -c | awk '{print $2, $3, $1}'; }

one() {
	local s=$1 p e
	p=$(prog inl_cases "$s")
	record "f.$s.dat" -O inlined -p function -l ip_local_out -l 'inl_*' -l send_packet -- "$p" ||
		fail "$s: record exited $?: $(cat "f.$s.dat.err")"
	expect "$s: record says nothing" "f.$s.dat.err" </dev/null
	report "f.$s.dat" | inl_funcs >"f.$s.txt"
	expect "$s: function counts" "f.$s.txt" <<'EOF2'
inl_a <-main 1
inl_b <-main 1
inl_inner <-inl_nest 1
inl_nest <-main 1
inl_outer <-inl_nest 1
inl_scale <-inl_a 1
inl_scale <-inl_b 1
inl_step <-inl_thrice 3
inl_thrice <-main 1
ip_local_out <-ip_send_skb 10
ip_local_out <-main 5
send_packet <-main 1
EOF2
	record "g.$s.dat" -O inlined -p function_graph -g inl_nest -g inl_thrice -g inl_a -- "$p" ||
		fail "$s: graph record exited $?"
	report "g.$s.dat" | events | sed -E 's/^ *[0-9]+\) +/ N) /; s/([+!#*@$] )?[0-9]+\.[0-9]+ us +\|/<DUR> |/' >"g.$s.txt"
	expect "$s: function_graph" "g.$s.txt" <<'EOF2'
 N) |  inl_a() {
 N) |    inl_scale(); /* inlined */
 N) <DUR> |  }
 N) |  inl_nest() {
 N) |    inl_outer(); /* inlined */
 N) |      inl_inner(); /* inlined */
 N) <DUR> |  }
 N) |  inl_thrice() {
 N) |    inl_step(); /* inlined */
 N) |    inl_step(); /* inlined */
 N) |    inl_step(); /* inlined */
 N) <DUR> |  }
EOF2
	# a graph filter naming the inlined function itself; notrace
	record "r.$s.dat" -O inlined -p function_graph -g inl_scale -- "$p" || fail "$s: -g inl_scale exited $?"
	report "r.$s.dat" | events | sed -E 's/^ *[0-9]+\) +/ N) /' >"r.$s.txt"
	expect "$s: -g inl_scale" "r.$s.txt" <<'EOF2'
 N) |  inl_scale(); /* inlined */
 N) |  inl_scale(); /* inlined */
EOF2
	record "n.$s.dat" -O inlined -p function -l 'inl_*' -n inl_scale -n inl_step -- "$p" || fail "$s: -n exited $?"
	report "n.$s.dat" | inl_funcs >"n.$s.txt"
	expect "$s: notrace" "n.$s.txt" <<'EOF2'
inl_a <-main 1
inl_b <-main 1
inl_inner <-inl_nest 1
inl_nest <-main 1
inl_outer <-inl_nest 1
inl_thrice <-main 1
EOF2
	# a function command on the inlined function: traceoff at inl_outer's instance
	record "c.$s.dat" -O inlined -p function -l 'inl_outer:traceoff' -l 'inl_*' -- "$p" ||
		fail "$s: traceoff exited $?"
	report "c.$s.dat" | funcs >"c.$s.txt"
	expect "$s: traceoff at an instance" "c.$s.txt" <<'EOF2'
inl_a <-main
inl_scale <-inl_a
inl_b <-main
inl_scale <-inl_b
inl_nest <-main
EOF2
	if command -v trace-cmd >/dev/null; then
		trace-cmd report -i "g.$s.dat" 2>/dev/null | grep -c 'funcgraph_inlined: .*inl_step(); /\* inlined \*/' >"tc.$s.txt"
		expect "$s: trace-cmd reads the inlined events" "tc.$s.txt" <<<3
	fi
	"$UTRACE" profile -O inlined -- "$p" >"prof.$s.txt" 2>&1 || fail "$s: profile exited $?"
	awk '$1 ~ /^(inl_scale|inl_step|inl_inner|ip_local_out)$/ {print $1, $2}' "prof.$s.txt" | sort >"hits.$s.txt"
	expect "$s: profiler hits" "hits.$s.txt" <<'EOF2'
inl_inner 1
inl_scale 2
inl_step 3
ip_local_out 15
EOF2
	e=$(prog inl_edge "$s")
	"$e" >"plain.$s.out"
	record "e.$s.dat" -O inlined -p function -l 'edge_*' -- "$e" || fail "$s: inl_edge exited $?"
	check "$s: the red zone is left alone" diff -u "plain.$s.out" "e.$s.dat.out"
	report "e.$s.dat" | inl_funcs >"e.$s.txt"
	expect "$s: inl_edge counts" "e.$s.txt" <<'EOF2'
edge_loop <-loop_body 6
edge_redzone <-rz_leaf 4
EOF2
	"$UTRACE" list --inlined -f "$e" | grep '^edge_tail' | sed -E 's/entry 0x[0-9a-f]+/entry <ADDR>/' >"tail.$s.txt"
	expect "$s: refused alone, with the reason" "tail.$s.txt" <<'EOF2'
edge_tail in use_tail at tests/progs/inl_edge.c:54 entry <ADDR>  traceable: no -- a return or jump away within the 5 bytes the jump replaces
EOF2
}
for_styles one
finish
