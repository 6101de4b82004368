#!/bin/bash
# examples/read_trace (the reader library's public API alone): per-function
# call counts of a trace.dat, the same as report's; of a running process
# (a snapshot, the buffers left as they were); a missing file is an error.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

RT=$UT_BUILD/examples/read_trace
[ -x "$RT" ] || fail "$RT missing (make all)"

record single.dat -- "$(prog single gcc-pfe)" || fail "record exited $?: $(cat single.dat.err)"
"$RT" single.dat >rt.txt 2>rt.err || fail "read_trace exited $?: $(cat rt.err)"
expect "trace.dat counts" rt.txt <<'EOF'
       7 s_leaf
       3 s_middle
       1 main
       1 s_top
EOF

server_start gcc-pfe
check "start" "$UTRACE" start -p function -l 'parse_*'
server_cmd "run 2"
"$RT" -l "$SERVER_PID" >live1.txt 2>live.err || fail "read_trace -l exited $?: $(cat live.err)"
"$RT" -l >live2.txt 2>>live.err || fail "read_trace -l (all) exited $?: $(cat live.err)"
expect "live counts" live1.txt <<'EOF'
       4 parse_header
       2 parse_noise
       2 parse_request
EOF
expect "live counts, all processes, nothing consumed" live2.txt <<'EOF'
       4 parse_header
       2 parse_noise
       2 parse_request
EOF
server_stop

"$RT" nosuch.dat >/dev/null 2>bad.err
expect_eq "missing file status" 1 $?
grep -q 'nosuch.dat' bad.err || fail "missing file: no message naming it: $(cat bad.err)"
no_crash rt.err live.err bad.err
finish
