#!/bin/bash
# trace_pipe: consuming (what it printed is gone from trace), blocking (a
# reader waits for new events), O_NONBLOCK gives EAGAIN, the lines are
# trace's lines without the header; processes/PID/trace_pipe and
# per_thread/TID/trace_pipe consume only their own events; both buffer
# modes (overwrite and producer/consumer).  SPEC §5.
. "$(dirname "$0")/mount.lib"

# wait_lines FILE N: until FILE has N lines (10 s)
wait_lines() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.05
	done
	fail "$1: $(wc -l <"$1") lines, expected $2"
}

do_mount
start_server s1
start_server s2
P1=$(pid_of s1)
P2=$(pid_of s2)
cd "$MNT" || exit 1

echo parse_noise >set_ftrace_filter
echo function >current_tracer
expect_eq "empty pipe, O_NONBLOCK" EAGAIN "$(werr dd if=trace_pipe iflag=nonblock of=/dev/null status=none)"
run_req s1 2
grep -v '^#' trace >"$TOP/trace-lines.txt"
timeout 2 cat trace_pipe >"$TOP/pipe1.txt"
expect_eq "cat trace_pipe blocks" 124 $?
check "pipe lines are the trace lines" cmp -s "$TOP/trace-lines.txt" "$TOP/pipe1.txt"
expect_eq "two events" 2 "$(wc -l <"$TOP/pipe1.txt")"
expect_eq "consumed" 0 "$(grep -vc '^#' trace)"
expect_eq "nothing left" EAGAIN "$(werr dd if=trace_pipe iflag=nonblock of=/dev/null status=none)"

# an open trace_pipe consumes only for a read: events that come while it is
# open and not read stay in the buffer (trace shows them), the next read
# takes them (a closed file's reader took them once after its last read)
python3 - "$TOP" >"$TOP/idle.txt" <<'EOF2'
import os, sys, time
top = sys.argv[1]
def ran():
    with open(top + "/s1.out") as f:
        return f.read().count("ran 2 ")
def in_trace():
    with open("trace") as f:
        return sum(1 for l in f if not l.startswith("#"))
fd = os.open("trace_pipe", os.O_RDONLY | os.O_NONBLOCK)
try:
    print("read:", len(os.read(fd, 65536).splitlines()))
except BlockingIOError:
    print("read: EAGAIN")
n = ran()
with open(top + "/s1.in", "w") as f:
    f.write("run 2\n")
for _ in range(200):
    if ran() > n:
        break
    time.sleep(0.05)
time.sleep(0.3)
print("trace:", in_trace())
try:
    print("then read:", len(os.read(fd, 65536).splitlines()))
except BlockingIOError:
    print("then read: EAGAIN")
os.close(fd)
print("trace after:", in_trace())
EOF2
expect "idle open pipe" "$TOP/idle.txt" <<'EOF2'
read: EAGAIN
trace: 2
then read: 2
trace after: 0
EOF2

# a blocked reader gets events as they come, and nothing twice
cat trace_pipe >"$TOP/pipe2.txt" &
reader=$!
run_req s1 1
wait_lines "$TOP/pipe2.txt" 1
run_req s2 3
wait_lines "$TOP/pipe2.txt" 4
kill "$reader"
wait "$reader" 2>/dev/null
expect_eq "4 events" 4 "$(wc -l <"$TOP/pipe2.txt")"
expect_eq "s2's events" 3 "$(grep -c "server.gcc-pfe-$P2 " "$TOP/pipe2.txt")"
alive

# processes/PID/trace_pipe takes only that process's events
run_req s1 1
run_req s2 2
timeout 1 cat processes/$P2/trace_pipe >"$TOP/pipe3.txt"
expect_eq "s2 pipe" 2 "$(grep -c "server.gcc-pfe-$P2 " "$TOP/pipe3.txt")"
expect_eq "s2 pipe: s2 only" 2 "$(wc -l <"$TOP/pipe3.txt")"
expect_eq "s1 still in trace" 1 "$(grep -vc '^#' trace)"
expect_eq "s2 consumed" 0 "$(grep -vc '^#' processes/$P2/trace)"
timeout 1 cat trace_pipe >/dev/null

# a small read gets the start of the text, the next read the rest
run_req s1 3
dd if=trace_pipe bs=20 count=1000 iflag=nonblock status=none >"$TOP/pipe4.txt" 2>/dev/null
expect_eq "piecewise reads lose nothing" 3 "$(grep -c 'parse_noise <-parse_request' "$TOP/pipe4.txt")"

# per_thread/TID/trace_pipe consumes one thread
echo st_leaf >processes/$P2/set_ftrace_filter
send s2 "hammer 2"
wait_for s2 '^hammered '
T=$(ls processes/$P2/per_thread | grep -vx "$P2" | head -n 1)
timeout 1 cat processes/$P2/per_thread/$T/trace_pipe >"$TOP/pipe5.txt"
expect_eq "one thread's events" 4 "$(wc -l <"$TOP/pipe5.txt")"
expect_eq "that thread only" "$T" "$(sed -E 's/^ *[^ ]*-([0-9]+) .*/\1/' "$TOP/pipe5.txt" | sort -u)"
expect_eq "the others stay" 12 "$(grep -c st_leaf processes/$P2/trace)"
expect_eq "thread trace empty" 0 "$(grep -vc '^#' processes/$P2/per_thread/$T/trace)"
timeout 1 cat trace_pipe >/dev/null

# producer/consumer buffers (overwrite=0) are consumed too
echo 0 >options/overwrite
echo parse_noise >set_ftrace_filter
echo >trace
run_req s1 2
timeout 1 cat trace_pipe >"$TOP/pipe6.txt"
expect_eq "nooverwrite: events" 2 "$(wc -l <"$TOP/pipe6.txt")"
expect_eq "nooverwrite: consumed" 0 "$(grep -vc '^#' trace)"
run_req s1 1
timeout 1 cat trace_pipe >"$TOP/pipe7.txt"
expect_eq "nooverwrite: only the new one" 1 "$(wc -l <"$TOP/pipe7.txt")"
alive
finish
