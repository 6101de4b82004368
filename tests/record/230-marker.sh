#!/bin/bash
# trace_marker from a program (utrace_marker()): a tracing_mark_write event
# for the function tracer, a comment inside the function_graph graph.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 P
	P=$(prog marker "$s")
	"$UTRACE" record -p function -o m.dat -- "$P" >out 2>err
	report m.dat | funcs >f.txt
	expect "$s marker: function" f.txt <<'EOF'
main <-[libc]
m_work <-main
tracing_mark_write: work begins
m_leaf <-m_work
EOF
	"$UTRACE" record -p function_graph -o g.dat -- "$P" >out 2>err
	report g.dat | sed -E 's/^ *[0-9]+\) [-+!#*@$ ] +[0-9.]+ us +\|/ <DUR> |/; s/^ *[0-9]+\)//' | tail -n +5 >g.txt
	expect "$s marker: function_graph" g.txt <<'EOF'
               |  main() {
               |    m_work() {
               |      /* work begins */
 <DUR> |      m_leaf();
 <DUR> |    }
 <DUR> |  }
EOF
	expect "$s marker: program output" out <<'EOF'
marker 4
EOF
}

for_styles one
finish
