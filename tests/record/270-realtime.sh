#!/bin/bash
# Run by root, `utrace record` drains the buffers at real-time priority
# (SCHED_FIFO) while the program runs, so it is woken on time; the traced
# program itself stays a normal process, and records as usual.
. "$(dirname "$0")/../lib/common.sh"

[ "$(id -u)" = 0 ] || skip "needs root (or RLIMIT_RTPRIO) for SCHED_FIFO"
S=${STYLES%% *}
rm -f in.fifo
mkfifo in.fifo
"$UTRACE" record -p function -l handle_request -o rt.dat -- "$(prog server "$S")" \
	<in.fifo >rt.out 2>rt.err &
rec=$!
exec 7>in.fifo
echo ping >&7
for ((i = 0; i < 500; i++)); do
	[ -s rt.out ] && break
	sleep 0.01
done
child=$(pgrep -P "$rec" | head -n 1)
expect_eq "recorder class" FF "$(ps -o cls= -p "$rec" | tr -d ' ')"
expect_eq "traced program class" TS "$(ps -o cls= -p "$child" | tr -d ' ')"
echo "run 1" >&7
echo quit >&7
exec 7>&-
wait $rec
expect_eq "record status" 0 $?
report rt.dat | funcs >f.txt
expect "events" f.txt <<'EOT'
handle_request <-main
EOT
no_crash rt.err
finish
