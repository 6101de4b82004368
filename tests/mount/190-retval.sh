#!/bin/bash
# The mount's trace and trace_pipe with options/funcgraph-retval print the
# traced functions' return values as the kernel does (SPEC §13): an errno
# such as -5 in decimal, the rest in hex; funcgraph-retval-hex: all hex.
. "$(dirname "$0")/mount.lib"

SERVER=$(prog retval gcc-pfe)
# the graph lines without CPU and duration columns
body() { grep -v '^#' | sed -E 's/^[^|]*\|//'; }
# call NAME N: "call N", wait for its reply
call() {
	send "$1" "call $2"
	wait_for "$1" "^called $2 "
}

do_mount
start_server r1
cd "$MNT" || exit 1

expect_eq "retval off by default" 0 "$(cat options/funcgraph-retval)"
echo 'rv_*' >set_ftrace_filter
echo function_graph >current_tracer
echo 1 >options/funcgraph-retval
call r1 0
body <trace >"$TOP/t1.txt"
expect "trace, funcgraph-retval" "$TOP/t1.txt" <<'EOF2'
  rv_outer() {
    rv_eio(); /* ret=-5 */
    rv_einval(); /* ret=-22 */
    rv_hex(); /* ret=0x1234 */
    rv_far(); /* ret=0xffffffffffffec78 */
    rv_zero(); /* ret=0x0 */
  } /* rv_outer ret=-367 */
EOF2
echo 1 >options/funcgraph-retval-hex
body <trace >"$TOP/t2.txt"
expect "trace, funcgraph-retval-hex" "$TOP/t2.txt" <<'EOF2'
  rv_outer() {
    rv_eio(); /* ret=0xfffffffb */
    rv_einval(); /* ret=0xffffffffffffffea */
    rv_hex(); /* ret=0x1234 */
    rv_far(); /* ret=0xffffffffffffec78 */
    rv_zero(); /* ret=0x0 */
  } /* rv_outer ret=0xfffffffffffffe91 */
EOF2

# trace_pipe decodes the rings itself
echo 0 >options/funcgraph-retval-hex
echo >trace
call r1 0
timeout 2 cat trace_pipe | body >"$TOP/p1.txt"
expect "trace_pipe, funcgraph-retval" "$TOP/p1.txt" <<'EOF2'
  rv_outer() {
    rv_eio(); /* ret=-5 */
    rv_einval(); /* ret=-22 */
    rv_hex(); /* ret=0x1234 */
    rv_far(); /* ret=0xffffffffffffec78 */
    rv_zero(); /* ret=0x0 */
  } /* rv_outer ret=-367 */
EOF2
alive
finish
