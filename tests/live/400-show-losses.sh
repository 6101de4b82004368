#!/bin/bash
# show of a process that lost events (a producer/consumer buffer that
# filled): the loss line before the first event after it, the header's
# entries/written counts and the one warning, and every byte the same as
# the trace.dat extract writes prints with report (show prints straight
# from the buffers, extract through the file: the two must agree).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}
# 4 KiB producer/consumer buffers for the server from its start
check "template" "$UTRACE" start -b 4 -p nop -O nooverwrite
server_start "$S"
check "start" "$UTRACE" start -P "$SERVER_PID" -b 4 -p function -l 'parse_*' -O nooverwrite
server_cmd "run 2000" # 8000 calls into 4 KiB: most refused
# cleared (start clears): the next page starts with the count refused
check "restart" "$UTRACE" start -P "$SERVER_PID" -b 4 -p function -l 'parse_*' -O nooverwrite
server_cmd "run 2"

"$UTRACE" show -P "$SERVER_PID" >show.txt 2>show.err
expect_eq "show status" 0 $?
mask <show.txt | sed -E 's/LOST [0-9]+ EVENTS/LOST <N> EVENTS/; s/^CPU:[0-9]+/CPU:<CPU>/;
	s|entries-written: 8/[0-9]+|entries-written: 8/<W>|' >m.txt
expect "show" m.txt <<'EOF'
# tracer: function
#
# entries-in-buffer/entries-written: 8/<W>   #P:<N>
#
#                                _-----=> irqs-off/BH-disabled
#                               / _----=> need-resched
#                              | / _---=> hardirq/softirq
#                              || / _--=> preempt-depth
#                              ||| / _-=> migrate-disable
#                              |||| /     delay
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
CPU:<CPU> [LOST <N> EVENTS]
server-<PID> [<CPU>] ..... <TS>: parse_request <-handle_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_noise <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_request <-handle_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_header <-parse_request
server-<PID> [<CPU>] ..... <TS>: parse_noise <-parse_request
EOF
# written = entries + lost: the header counts what the loss line says
lost=$(sed -nE 's/^CPU:[0-9]+ \[LOST ([0-9]+) EVENTS\]$/\1/p' show.txt)
expect_eq "written = 8 + lost" "entries-written: 8/$((8 + lost))" \
	"$(grep -oE 'entries-written: [0-9]+/[0-9]+' show.txt)"
sed -E 's/^utrace: [0-9]+ events/utrace: <N> events/' show.err >e.txt
expect "one warning" e.txt <<'EOF'
utrace: <N> events lost (buffers full or overwritten; try a larger -b)
EOF

# the same snapshot through a trace.dat: byte for byte
check "extract" "$UTRACE" extract -P "$SERVER_PID" -o x.dat
report x.dat >r.txt
check "show = extract + report" cmp show.txt r.txt
# and with output options (the write-out folds func-no-repeats)
"$UTRACE" show -P "$SERVER_PID" -O func-no-repeats -O sym-offset -O latency-format >show2.txt \
	2>/dev/null
report x.dat -O func-no-repeats -O sym-offset -O latency-format >r2.txt
check "with options" cmp show2.txt r2.txt
no_crash show.err x.dat.rerr
server_stop
finish
