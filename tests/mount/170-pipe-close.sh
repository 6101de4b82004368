#!/bin/bash
# A trace_pipe reader closed with a backlog it had not printed yet stops
# consuming at once: events that come after it stay in the buffers for
# `trace`, and the daemon goes on answering.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
cd "$MNT" || exit 1

echo nooverwrite >trace_options
echo 65536 >buffer_size_kb
echo st_step >set_ftrace_filter
echo function >current_tracer
cat trace_pipe >/dev/null &
reader=$!
sleep 0.3
# a burst much bigger than the reader formats in the time the test takes
send s1 "hammer 200000"
wait_for s1 '^hammered '
kill "$reader"
wait "$reader" 2>/dev/null
# the reader is gone: a request after it is not consumed by anyone
echo parse_noise >set_ftrace_filter
run_req s1 3
sleep 0.5
expect_eq "after the reader: in trace" 3 "$(grep -c 'parse_noise <-parse_request' trace)"
alive
finish
