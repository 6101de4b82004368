#!/bin/bash
# ftrace:print's triggers on a program's own markers (utrace_marker(), the
# in-program trace_marker): `record --trigger 'ftrace:print ...'` runs them
# in the program as it writes the marker, as the kernel runs them in the
# writer.  traceoff stops the recording after the marker (m_leaf, called
# next, is not recorded; the marker is), `if common_pid == 1` keeps it from
# firing, stacktrace records the writer's stack (m_work, called from main).
# (mount/905: a hist keyed on ip.sym, the function that wrote it.)
. "$(dirname "$0")/../lib/common.sh"

P=$(prog marker gcc-pfe)
"$UTRACE" record -p function -o m.dat --trigger 'ftrace:print traceoff' -- "$P" >out 2>err
report m.dat | funcs >f.txt
expect "traceoff after the marker" f.txt <<'EOF'
main <-[libc]
m_work <-main
tracing_mark_write: work begins
EOF
"$UTRACE" record -p function -o c.dat --trigger 'ftrace:print traceoff if common_pid == 1' -- "$P" >out 2>err
expect_eq "a filter that does not pass" 4 "$(report c.dat | funcs | wc -l)"

"$UTRACE" record -p nop -o s.dat --trigger 'ftrace:print stacktrace' -- "$P" >out 2>err
report s.dat | grep -v '^#' | sed -E 's/^ *[^ ]+ +\[[0-9]+\] [^ ]+ +[0-9.]+: //; s/\+0x[0-9a-f]+\/0x[0-9a-f]+//' |
	sed -n 1,4p >s.txt
expect "the marker, then the writer's stack" s.txt <<'EOF'
tracing_mark_write: work begins
<stack trace>
 => m_work
 => main
EOF
expect_eq "program output" "marker 4" "$(cat out)"
finish
