#!/bin/bash
# A server under thread and process churn, traced live (issue 17): 4,400
# short threads (more than the 4,096 slots: they are recycled), a burst of
# 64 threads alive at once, tracer
# switches, stop, reset, forked helpers, then kill -9.  The server's results
# are unchanged; its buffers in /dev/shm, its resident memory and open files
# stay under stated bounds (-b 8 KiB, --buffer-total 64 KiB: at most 12
# buffers of 12 KiB with 4 threads alive at a time; 4 MiB of session files;
# 64 MiB resident; 16 open files) and so does a reader's memory (show: 100
# MiB); helpers that wrote nothing leave no session, those that did are
# listed by ps until reset, and reset after kill -9 removes the session in
# one call, with no message.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

sess() { ls run | grep -c '^[0-9]'; }

# bounds LABEL: the server's buffers, session files, memory and open files
bounds() {
	local bufs kb rss fds
	bufs=$(ls run/"$SERVER_PID".*/ | grep -c 'buf\.')
	kb=$(du -sk run | cut -f1)
	rss=$(awk '/^VmRSS/ {print $2}' /proc/"$SERVER_PID"/status)
	fds=$(ls /proc/"$SERVER_PID"/fd | wc -l)
	[ "$bufs" -le 12 ] || fail "$1: $bufs buffers"
	[ "$kb" -le 4096 ] || fail "$1: $kb KiB of session files"
	[ "$rss" -le 65536 ] || fail "$1: $rss KiB resident"
	[ "$fds" -le 16 ] || fail "$1: $fds open files"
}

# show_bounded: utrace show, its maximum resident memory in show.rss (KiB)
show_bounded() {
	/usr/bin/time -f %M -o show.rss "$UTRACE" show "$@" >show.txt 2>show.err ||
		fail "show $*: $(cat show.err)"
	[ "$(cat show.rss)" -le 102400 ] || fail "show $*: $(cat show.rss) KiB resident"
}

rm -rf run
server_start gcc-pfe
check "start function" "$UTRACE" start -p function -l st_step -b 8 --buffer-total 64
server_cmd "churn 1100 5"
expect_eq "churn under function" "churned 1540000" "$REPLY"
bounds "after 4,400 threads"
# 64 threads alive at once each get a buffer; once they exit, the oldest
# exited ones give theirs back down to the bound
server_cmd "burst 64 5"
expect_eq "burst" "burst 25088" "$REPLY"
bounds "after a burst of 64 threads"
server_cmd "hammer 7"
expect_eq "hammer" "hammered 2352" "$REPLY"
show_bounded
# the newest threads are traced (the 4 of the last hammer: 7 calls each, at least)
n=$(funcs <show.txt | grep -c '^st_step')
[ "$n" -ge 28 ] || fail "show after the churn: $n st_step events"
# older threads' events were overwritten to respect the bound: counted, as lost
read -r inbuf written < <(sed -n 's/^# entries-in-buffer\/entries-written: \([0-9]*\)\/\([0-9]*\).*/\1 \2/p' show.txt)
[ "${written:-0}" -ge 22028 ] && [ "${inbuf:-0}" -lt "$written" ] ||
	fail "show after the churn: entries $inbuf of $written written"

check "start function_graph" "$UTRACE" start -p function_graph -l st_step -b 8 --buffer-total 64
server_cmd "churn 300 5"
expect_eq "churn under function_graph" "churned 420000" "$REPLY"
bounds "function_graph"
show_bounded
grep -q 'st_step();' show.txt || fail "function_graph: no st_step"

check "stop" "$UTRACE" stop
server_cmd "churn 100 5"
expect_eq "churn stopped" "churned 140000" "$REPLY"
bounds "stopped"

check "reset" "$UTRACE" reset
server_cmd "churn 100 5"
expect_eq "churn after reset" "churned 140000" "$REPLY"
bounds "reset"
show_bounded
expect_eq "nothing after reset" 0 "$(funcs <show.txt | wc -l)"

# helpers: those with nothing traced leave no session, the others stay until reset
check "start helpers" "$UTRACE" start -p function -l handle_request -b 8 --buffer-total 64
server_cmd "forks 20 0"
expect_eq "forks, nothing traced" "forked 20 0" "$REPLY"
expect_eq "no helper session left" 1 "$(sess)"
server_cmd "forks 5 3"
expect_eq "forks traced" "forked 5 180" "$REPLY"
"$UTRACE" ps | awk 'NR > 1 {print $7}' | sort | uniq -c | awk '{print $2, $1}' >ps.txt
expect "ps: the helpers that wrote" ps.txt <<'EOF'
exited 5
running 1
EOF
check "reset removes exited helpers" "$UTRACE" reset
expect_eq "helpers gone" 1 "$(sess)"
bounds "helpers"

server_stop

# kill -9 of a traced process whose parent does not reap it (a zombie):
# dead by pid and start time, so reset removes its session at once
rm -f z.in
mkfifo z.in
(
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog server gcc-pfe)" <z.in >z.out 2>z.err &
	echo $! >z.pid
	exec sleep 60 # the parent now: it never waits
) &
parent=$!
exec 8>z.in
echo ping >&8
for ((i = 0; i < 1000; i++)); do
	[ -s z.out ] && [ -s z.pid ] && break
	sleep 0.01
done
zpid=$(cat z.pid)
check "start before kill -9" "$UTRACE" start -p function -l handle_request
echo crash >&8
for ((i = 0; i < 1000; i++)); do
	[ "$(awk '{print $3}' /proc/"$zpid"/stat 2>/dev/null)" = Z ] && break
	sleep 0.01
done
expect_eq "killed, not reaped" Z "$(awk '{print $3}' /proc/"$zpid"/stat 2>/dev/null)"
"$UTRACE" reset >reset.out 2>reset.err || fail "reset after kill -9 exited $?"
expect "reset after kill -9: no message" reset.err </dev/null
expect_eq "reset after kill -9: session gone" 0 "$(sess)"
exec 8>&-
kill "$parent" 2>/dev/null
wait "$parent" 2>/dev/null
no_crash srv.err show.err
finish
