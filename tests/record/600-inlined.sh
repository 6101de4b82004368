#!/bin/bash
# Functions the compiler inlined (issue 16), on tests/progs/inl_cases.c, every
# compiler and style: `list -f` marks a function that also has inlined
# copies, `list -f --inlined` lists every instance (nested, several in one
# caller), a filter word naming a function inlined into every caller says
# why instead of only "matches no traceable function", a filter selecting
# the trap (ip_local_out: a copy plus an inlined instance) says once what it
# misses, and the copy's calls are the ones traced (5 of the 15 in the
# source).  Tracing them with -O inlined: record/610.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 p
	p=$(prog inl_cases "$s")
	"$UTRACE" list -f "$p" | grep -v '^tlib_' | sort >"list.$s"
	expect "$s: list -f" "list.$s" <<'EOF'
inl_a
inl_b
inl_nest
inl_thrice
ip_local_out [+1 inlined]
ip_send_skb
main
send_packet
EOF
	"$UTRACE" list -f "$p" --inlined | sed -E 's/ \([0-9]+ ranges\)//; s/entry 0x[0-9a-f]+/entry <ADDR>/' |
		sort >"inl.$s"
	expect "$s: list -f --inlined" "inl.$s" <<'EOF'
inl_inner in inl_nest via inl_outer at tests/progs/inl_cases.c:67 entry <ADDR>  traceable: with -O inlined
inl_outer in inl_nest at tests/progs/inl_cases.c:72 entry <ADDR>  traceable: with -O inlined
inl_scale in inl_a at tests/progs/inl_cases.c:50 entry <ADDR>  traceable: with -O inlined
inl_scale in inl_b at tests/progs/inl_cases.c:55 entry <ADDR>  traceable: with -O inlined
inl_step in inl_thrice at tests/progs/inl_cases.c:83 entry <ADDR>  traceable: with -O inlined
inl_step in inl_thrice at tests/progs/inl_cases.c:83 entry <ADDR>  traceable: with -O inlined
inl_step in inl_thrice at tests/progs/inl_cases.c:83 entry <ADDR>  traceable: with -O inlined
ip_local_out in ip_send_skb at tests/progs/inl_cases.c:39 entry <ADDR>  traceable: with -O inlined
EOF
	# inlined into every caller: refused, saying why and what to do
	record "scale.$s.dat" -p function -l inl_scale -- "$p"
	expect_eq "$s: -l inl_scale exit" 2 "$?"
	sed "s|$p|PROG|g" "scale.$s.dat.err" >"scale.$s.txt"
	expect "$s: -l inl_scale says why" "scale.$s.txt" <<'EOF'
utrace: set_ftrace_filter: 'inl_scale' matches no traceable function of PROG
  inl_scale was inlined into every caller: 2 instances, in inl_a (tests/progs/inl_cases.c:50), inl_b (tests/progs/inl_cases.c:55)
  to trace it: -O inlined traces the inlined copies, or mark it __attribute__((noinline)), or trace its callers; `utrace list --inlined -f PROG` lists them
EOF
	# nested: the inner function's instance sits in inl_nest
	record "inner.$s.dat" -p function_graph -g inl_inner -- "$p"
	expect_eq "$s: -g inl_inner exit" 2 "$?"
	check "$s: -g inl_inner names inl_nest" grep -q "inl_inner was inlined into every caller: 1 instance, in inl_nest (tests/progs/inl_cases.c:67)" "inner.$s.dat.err"
	# the trap: traced, and the inlined copy it misses is said once
	record "trap.$s.dat" -p function -l ip_local_out -l send_packet -- "$p" ||
		fail "$s: record exited $?: $(cat "trap.$s.dat.err")"
	sed "s|$p|PROG|g" "trap.$s.dat.err" >"trap.$s.txt"
	expect "$s: the trap is said" "trap.$s.txt" <<'EOF'
utrace: note: set_ftrace_filter: ip_local_out is also inlined at 1 call site, not traced (-O inlined traces it; `utrace list --inlined -f PROG` lists it)
EOF
	report "trap.$s.dat" | grep -v '^#' | awk '{print $(NF-1)}' | sort | uniq -c >"trap.$s.funcs"
	expect "$s: functions" "trap.$s.funcs" <<'EOF'
      5 ip_local_out
      1 send_packet
EOF
}
for_styles one

finish
