#!/bin/bash
# func_stack_trace (record --func-stack): a <stack trace> event after each
# function event, the function first, then its callers, unwound through
# .eh_frame (no frame pointers in -O2 code); trace-cmd report shows the same.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 P
	P=$(prog single "$s")
	"$UTRACE" record -p function -l s_leaf --func-stack -o st.dat -- "$P" 1 >out 2>err
	expect_eq "$s --func-stack: status" 0 $?
	report st.dat | mask | sed -n '/^#/d; /=> main/q; p' >st.txt
	expect "$s --func-stack: first events" st.txt <<'EOF'
single-<PID> [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] ..... <TS>: <stack trace>
 => s_leaf
 => s_middle
 => s_top
EOF
	# every event is followed by its stack: 3 s_leaf calls, 3 stacks
	expect_eq "$s --func-stack: stacks" 3 "$(report st.dat | grep -c '<stack trace>')"
	report st.dat | grep -c ' => main' >n.txt
	expect "$s --func-stack: every stack reaches main" n.txt <<'EOF'
3
EOF
	if command -v trace-cmd >/dev/null; then
		trace-cmd report st.dat 2>/dev/null | grep -c '^=> s_leaf' >n.txt
		expect "$s --func-stack: trace-cmd sees the stacks" n.txt <<'EOF'
3
EOF
	fi
	# -O func_stack_trace is the same switch
	"$UTRACE" record -p function -l s_leaf -O func_stack_trace -o st2.dat -- "$P" 1 >out 2>err
	expect_eq "$s -O func_stack_trace: stacks" 3 "$(report st2.dat | grep -c '<stack trace>')"
}

for_styles one
finish
