#!/bin/bash
# processes/PID/per_thread/TID/stats (the kernel's per_cpu/cpuN/stats: 8
# lines, SPEC §3) and buffer_size_kb: counts follow what the thread wrote,
# what trace_pipe consumed (read events) and a clear.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

echo 'parse_*' >set_ftrace_filter
echo function >current_tracer
run_req s1 2
S=processes/$P/per_thread/$P
# bytes: the 8 records, plus TIME records (how many depends on timing)
sed -E 's/ts: +[0-9]+\.[0-9]{6}$/ts: <TS>/; s/^bytes: [0-9]+$/bytes: <B>/' $S/stats >"$TOP/st.txt"
b=$(sed -n 's/^bytes: //p' $S/stats)
[ "$b" -ge 144 ] && [ $((b % 16)) = 0 ] || fail "bytes: $b"
expect "stats after 8 events" "$TOP/st.txt" <<'EOF2'
entries: 8
overrun: 0
commit overrun: 0
bytes: <B>
oldest event ts: <TS>
now ts: <TS>
dropped events: 0
read events: 0
EOF2
# rings are powers of two: 1408 KiB asked, 2048 KiB made
expect_eq "buffer_size_kb" 2048 "$(cat $S/buffer_size_kb)"
echo >trace
expect_eq "cleared: no entries" "entries: 0" "$(head -1 $S/stats)"
expect_eq "cleared: counted as read" "read events: 8" "$(tail -1 $S/stats)"
run_req s1 1
timeout 5 cat trace_pipe >"$TOP/pipe.txt" &
cp=$!
sleep 1
kill $cp 2>/dev/null
wait $cp 2>/dev/null
expect_eq "pipe took the new events" 4 "$(grep -c parse_ "$TOP/pipe.txt")"
expect_eq "consumed: no entries" "entries: 0" "$(head -1 $S/stats)"
expect_eq "consumed: read" "read events: 12" "$(tail -1 $S/stats)"
alive
finish
