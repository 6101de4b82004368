#!/bin/bash
# function_graph through the mount: set_graph_function, max_graph_depth,
# set_graph_notrace and tracing_thresh (SPEC §13).  Durations are masked.
. "$(dirname "$0")/mount.lib"

# the graph lines without CPU and duration columns: "  func() {"
body() { grep -v '^#' | sed -E 's/^[^|]*\|//'; }

do_mount
start_server s1
cd "$MNT" || exit 1

echo handle_request >set_graph_function
echo 2 >max_graph_depth
echo function_graph >current_tracer
expect_eq "set_graph_function" handle_request "$(cat set_graph_function)"
expect_eq "max_graph_depth" 2 "$(cat max_graph_depth)"
run_req s1 2
sed -n 1,4p trace >"$TOP/hdr.txt"
expect "graph header" "$TOP/hdr.txt" <<'EOF2'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
EOF2
body <trace >"$TOP/g1.txt"
expect "depth 2" "$TOP/g1.txt" <<'EOF2'
  handle_request() {
    parse_request();
  }
  handle_request() {
    parse_request();
  }
EOF2
check "durations" grep -qE '^ *[0-9]+\) +([+!#*@$] +)?[0-9]+\.[0-9]+ us +\|  }$' trace

# unlimited depth, parse_noise hidden
echo 0 >max_graph_depth
echo parse_noise >set_graph_notrace
echo >trace
run_req s1 1
body <trace >"$TOP/g2.txt"
expect "notrace" "$TOP/g2.txt" <<'EOF2'
  handle_request() {
    parse_request() {
      parse_header();
      parse_header();
    }
  }
EOF2
expect_eq "set_graph_notrace" parse_noise "$(cat set_graph_notrace)"

# a root given with '>>' and a glob; '!' removes it again
echo '!handle_request' >>set_graph_function
echo 'parse_h*' >>set_graph_function
expect_eq "roots" parse_header "$(cat set_graph_function)"
echo >trace
run_req s1 1
body <trace >"$TOP/g3.txt"
expect "parse_header roots" "$TOP/g3.txt" <<'EOF2'
  parse_header();
  parse_header();
EOF2

# tracing_thresh: only calls lasting that long (none of these do)
echo >set_graph_function
echo >set_graph_notrace
echo 1000000 >tracing_thresh
echo >trace
run_req s1 3
expect_eq "thresh hides short calls" 0 "$(grep -vc '^#' trace)"
echo 0 >tracing_thresh

# switching the tracer clears the buffer (as the kernel does)
run_req s1 1
check "graph events" grep -q 'parse_request() {' trace
echo function >current_tracer
expect_eq "switch clears" 0 "$(grep -vc '^#' trace)"

# a call the graph tracer hooked that returns after the switch adds nothing
# to the new tracer's trace (the kernel's graph return handler is gone by then)
echo function_graph >current_tracer
send s1 hold
wait_for s1 '^holding$'
echo function >current_tracer
send s1 go
wait_for s1 '^held 1$'
run_req s1 1
grep -v '^#' trace >"$TOP/switched.txt"
expect_eq "no graph exit after the switch" 0 "$(grep -c '|' "$TOP/switched.txt")"
check "the function tracer's events" grep -q 'parse_request <-handle_request' "$TOP/switched.txt"
alive
finish
