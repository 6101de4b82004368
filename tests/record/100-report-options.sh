#!/bin/bash
# report -O options on a single-thread trace: noprint-parent, sym-offset,
# sym-addr, noirq-info, nocontext-info, record-tgid, latency-format, and a
# few combinations (masked: timestamps, pids, CPUs, addresses).
. "$(dirname "$0")/../lib/common.sh"

# opt LABEL REPORT-OPTIONS...: masked report, header lines after the first 2
# dropped unless HEADER=1 (the header is compared once per option).
opt() {
	report "$D" "$@" | mask >o.txt || fail "$S $*: report exited $?: $(cat "$D.rerr")"
	no_crash "$D.rerr"
}

one() {
	S=$1 D=o.dat
	record "$D" -- "$(prog single "$S")" 1 || fail "$S: record exited $?: $(cat "$D.err")"

	opt -O noprint-parent
	expect "$S noprint-parent" o.txt <<'EOF'
# tracer: function
#
# entries-in-buffer/entries-written: 6/6   #P:<N>
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
single-<PID> [<CPU>] ..... <TS>: main
single-<PID> [<CPU>] ..... <TS>: s_top
single-<PID> [<CPU>] ..... <TS>: s_middle
single-<PID> [<CPU>] ..... <TS>: s_leaf
single-<PID> [<CPU>] ..... <TS>: s_leaf
single-<PID> [<CPU>] ..... <TS>: s_leaf
EOF

	opt -O sym-addr
	events <o.txt >e.txt
	expect "$S sym-addr" e.txt <<'EOF'
single-<PID> [<CPU>] ..... <TS>: main <<ADDR>> <-[libc] <<ADDR>>
single-<PID> [<CPU>] ..... <TS>: s_top <<ADDR>> <-main <<ADDR>>
single-<PID> [<CPU>] ..... <TS>: s_middle <<ADDR>> <-s_top <<ADDR>>
single-<PID> [<CPU>] ..... <TS>: s_leaf <<ADDR>> <-s_middle <<ADDR>>
single-<PID> [<CPU>] ..... <TS>: s_leaf <<ADDR>> <-s_middle <<ADDR>>
single-<PID> [<CPU>] ..... <TS>: s_leaf <<ADDR>> <-main <<ADDR>>
EOF
	# sym-addr: the function's address is the same for every call of it, and
	# differs between functions; the parent's address lies after main's.
	report "$D" -O sym-addr | events |
		sed -E 's/.*: ([^ ]+) <([0-9a-f]+)> <-([^ ]+) <([0-9a-f]+)>$/\1 \2 \3 \4/' >a.txt
	expect_eq "$S sym-addr: one address per function" 4 "$(awk '{print $1, $2}' a.txt | sort -u | wc -l)"
	local mainaddr topparent
	mainaddr=$(awk '$1 == "main" {print $2}' a.txt)
	topparent=$(awk '$1 == "s_top" {print $4}' a.txt)
	[ -n "$mainaddr" ] && [ -n "$topparent" ] && [ $((16#$topparent > 16#$mainaddr)) = 1 ] ||
		fail "$S sym-addr: s_top's caller address $topparent not after main $mainaddr"

	opt -O sym-offset
	events <o.txt | sed -E 's/<ADDR>/X/g' >e.txt
	expect "$S sym-offset" e.txt <<'EOF'
single-<PID> [<CPU>] ..... <TS>: main+X/X <-[libc]+X/X [libc]
single-<PID> [<CPU>] ..... <TS>: s_top+X/X <-main+X/X
single-<PID> [<CPU>] ..... <TS>: s_middle+X/X <-s_top+X/X
single-<PID> [<CPU>] ..... <TS>: s_leaf+X/X <-s_middle+X/X
single-<PID> [<CPU>] ..... <TS>: s_leaf+X/X <-s_middle+X/X
single-<PID> [<CPU>] ..... <TS>: s_leaf+X/X <-main+X/X
EOF
	# The function itself is at offset 0; its caller at a non-zero offset.
	report "$D" -O sym-offset | events | grep -vE ': [a-z_]+\+0x0/0x[0-9a-f]+ <-[^ ]+\+0x[1-9a-f][0-9a-f]*/' |
		grep -v '\[libc\]' >bad.txt
	[ -s bad.txt ] && fail "$S sym-offset: offsets: $(head -n 2 bad.txt)"
	# Like the kernel's %pS, the size after '/' is the function's size.
	known_bug "report -O sym-offset prints the symbol size as 0x0 (s_top+0x0/0x0); the kernel prints the function's size (s_top+0x0/0x39)"
	report "$D" -O sym-offset | events | has '/0x0\b' &&
		fail "$S sym-offset: a symbol size is 0x0: $(report "$D" -O sym-offset | events | sed -n 2p)"
	end_known_bug

	opt -O noirq-info
	expect "$S noirq-info" o.txt <<'EOF'
# tracer: function
#
# entries-in-buffer/entries-written: 6/6   #P:<N>
#
#           TASK-PID     CPU#     TIMESTAMP  FUNCTION
#              | |         |         |         |
single-<PID> [<CPU>] <TS>: main <-[libc]
single-<PID> [<CPU>] <TS>: s_top <-main
single-<PID> [<CPU>] <TS>: s_middle <-s_top
single-<PID> [<CPU>] <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] <TS>: s_leaf <-s_middle
single-<PID> [<CPU>] <TS>: s_leaf <-main
EOF

	opt -O nocontext-info
	expect "$S nocontext-info" o.txt <<'EOF'
# tracer: function
#
main <-[libc]
s_top <-main
s_middle <-s_top
s_leaf <-s_middle
s_leaf <-s_middle
s_leaf <-main
EOF

	opt -O nocontext-info -O noprint-parent
	expect "$S nocontext-info noprint-parent" o.txt <<'EOF'
# tracer: function
#
main
s_top
s_middle
s_leaf
s_leaf
s_leaf
EOF

	opt -O record-tgid
	expect "$S record-tgid" o.txt <<'EOF'
# tracer: function
#
# entries-in-buffer/entries-written: 6/6   #P:<N>
#
#                                          _-----=> irqs-off/BH-disabled
#                                         / _----=> need-resched
#                                        | / _---=> hardirq/softirq
#                                        || / _--=> preempt-depth
#                                        ||| / _-=> migrate-disable
#                                        |||| /     delay
#           TASK-PID       TGID    CPU#  |||||  TIMESTAMP  FUNCTION
#              | |           |       |   |||||     |         |
single-<PID> (<TGID>) [<CPU>] ..... <TS>: main <-[libc]
single-<PID> (<TGID>) [<CPU>] ..... <TS>: s_top <-main
single-<PID> (<TGID>) [<CPU>] ..... <TS>: s_middle <-s_top
single-<PID> (<TGID>) [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> (<TGID>) [<CPU>] ..... <TS>: s_leaf <-s_middle
single-<PID> (<TGID>) [<CPU>] ..... <TS>: s_leaf <-main
EOF
	# the tgid of a single-threaded process is its pid
	report "$D" -O record-tgid | events | sed -E 's/^ *[^ ]*-([0-9]+) +\( *([0-9]+)\).*/\1 \2/' |
		awk '$1 != $2 {print "tid " $1 " tgid " $2}' >bad.txt
	[ -s bad.txt ] && fail "$S record-tgid: $(head -n 1 bad.txt)"

	# latency-format: cmd (8 chars)-pid, CPU digit + flags, time in us with
	# a delay mark, "func <-parent".
	report "$D" -O latency-format >l.txt || fail "$S latency-format: exit $?"
	sed -E -e 's/^([^ #]{1,8})-[0-9]+ +[0-9]+\.{5} +[0-9]+us[ +!#*@$]: /\1-<PID> <CPU>..... <US>: /' \
		-e 's/^# function latency trace v[0-9.]+ on .*/# function latency trace v<V> on <KERNEL>/' \
		-e 's/^([a-z_]+)\.[a-z]?-<PID>/\1-<PID>/' \
		-e 's/^# latency: .*/# latency: <LINE>/' l.txt >o.txt
	expect "$S latency-format" o.txt <<'EOF'
# tracer: function
#
# function latency trace v<V> on <KERNEL>
# --------------------------------------------------------------------
# latency: <LINE>
#    -----------------
#    | task: -0 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#
#                    _------=> CPU#            
#                   / _-----=> irqs-off/BH-disabled
#                  | / _----=> need-resched    
#                  || / _---=> hardirq/softirq 
#                  ||| / _--=> preempt-depth   
#                  |||| / _-=> migrate-disable 
#                  ||||| /     delay           
#  cmd     pid     |||||| time  |   caller     
#     \   /        ||||||  \    |    /       
single-<PID> <CPU>..... <US>: main <-[libc]
single-<PID> <CPU>..... <US>: s_top <-main
single-<PID> <CPU>..... <US>: s_middle <-s_top
single-<PID> <CPU>..... <US>: s_leaf <-s_middle
single-<PID> <CPU>..... <US>: s_leaf <-s_middle
single-<PID> <CPU>..... <US>: s_leaf <-main
EOF
	grep -q "#6/6, CPU#" l.txt || fail "$S latency-format: no '#6/6' in the latency line: $(grep '^# latency' l.txt)"
	# the times of latency-format are the report's timestamps in us
	paste -d' ' <(report "$D" | events | sed -E 's/.* ([0-9]+)\.([0-9]{6}): .*/\1\2/' | sed -E 's/^0+([0-9])/\1/') \
		<(events <l.txt | sed -E 's/.* ([0-9]+)us.*/\1/') | awk '$1 != $2' >bad.txt
	[ -s bad.txt ] && fail "$S latency-format: times differ from the timestamps: $(head -n 2 bad.txt)"
}

for_styles one
# nop: no events; like the kernel, the header names the tracer.
S=${STYLES%% *}
record n.dat -p nop -- "$(prog single "$S")" || fail "nop: record exited $?"
expect "nop stdout" n.dat.out <<'EOF'
single 13
EOF
report n.dat | events >e.txt
[ -s e.txt ] && fail "nop: events recorded: $(head -n 2 e.txt)"
known_bug "report always prints '# tracer: function' (cli/cmd/report.c sets cfg.tracer = \"function\"), even for a -p nop trace"
report n.dat | head -n 1 >h.txt
expect "nop header" h.txt <<'EOF'
# tracer: nop
EOF
end_known_bug
finish
