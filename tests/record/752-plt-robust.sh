#!/bin/bash
# Library calls that do not return normally (issue 14): the function_graph
# robustness matrix of record/200 again with -O plt, so that every library
# call is hooked too -- longjmp and siglongjmp called through the PLT,
# exit, fork/vfork+exec, swapcontext, pthread_exit, __cxa_throw and
# _Unwind_Resume from libstdc++, backtrace() -- and the programs behave
# exactly as untraced (stdout, stderr, exit status) with a well-formed
# graph.  For a caught exception the graph is checked: __cxa_throw, called
# through the PLT, is left by the exception and prints entry-only, the
# catching function closes at its depth.
. "$(dirname "$0")/../lib/common.sh"

gmask() {
	sed -E -e 's/^ *[0-9]+\)/ N)/' -e 's/^ N\) [-+!#*@$ ] +[0-9]+(\.[0-9]+)? us +\|/ N) <DUR> us |/'
}
PIN=()
command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && PIN=(taskset -c 0)

one() {
	local s=$1 c p st1 st2 P
	for p in graph_robust graph_exceptions; do
		P=$(prog $p "$s")
		for c in longjmp signal context coroutines pingpong recurse backtrace fork thread exit \
			catch rethrow cleanup forced; do
			case $p:$c in
			graph_robust:catch | graph_robust:rethrow | graph_robust:cleanup) continue ;;
			graph_robust:forced) continue ;;
			graph_exceptions:longjmp | graph_exceptions:catch | graph_exceptions:rethrow) ;;
			graph_exceptions:cleanup | graph_exceptions:forced) ;;
			graph_exceptions:*) continue ;;
			esac
			"$P" $c >plain.out 2>plain.err
			st1=$?
			"${PIN[@]}" "$UTRACE" record -O plt -p function_graph -o r.dat -- "$P" $c >rec.out 2>rec.err
			st2=$?
			expect_eq "$s $p $c: exit status" "$st1" "$st2"
			cmp -s plain.out rec.out || fail "$s $p $c: stdout differs: $(diff plain.out rec.out)"
			cmp -s plain.err rec.err || fail "$s $p $c: stderr differs: $(diff plain.err rec.err)"
			report r.dat >r.txt || fail "$s $p $c: report failed"
			no_crash r.dat.rerr
			if grep -vE '^(#|$| *[0-9]+\) | -+$)' r.txt | has .; then
				fail "$s $p $c: malformed lines: $(grep -vE '^(#|$| *[0-9]+\) | -+$)' r.txt | head -3)"
			fi
			grep -qE -- '-[0-9][0-9.]* us' r.txt && fail "$s $p $c: negative duration"
			grep -qE '\[lib' r.txt || fail "$s $p $c: no library call traced"
		done
	done
	# the profiler rides on the same hooks
	P=$(prog graph_robust "$s")
	"$P" longjmp >plain.out 2>&1
	"$UTRACE" profile -O plt -- "$P" longjmp >prof.txt 2>prof.err
	grep -q "longjmp: back" prof.txt || fail "$s profile: program output missing"
	grep -qE '^ +(printf|puts) ' prof.txt || fail "$s profile: no library function in the table: $(head -20 prof.txt)"
}

# a caught exception thrown through the PLT: the graph
"${PIN[@]}" "$UTRACE" record -O plt -p function_graph -l 'e_*' -l main -l __cxa_throw \
	-o e.dat -- "$(prog graph_exceptions gcc-pfe)" catch >e.out 2>e.err || fail "record catch"
report e.dat | gmask | tail -n +5 >g.txt
expect "exception through __cxa_throw" g.txt <<'X'
 N)               |  main() {
 N)               |    e_catcher() {
 N)               |      e_middle() {
 N) <DUR> us |        e_thrower();
 N) <DUR> us |      }
 N) <DUR> us |    }
 N)               |    e_catcher() {
 N)               |      e_middle() {
 N)               |        e_thrower() {
 N)               |          __cxa_throw [libstdc++]() {
 N) <DUR> us |      e_leaf();
 N) <DUR> us |    }
 N) <DUR> us |    e_leaf();
 N) <DUR> us |  }
X
STYLES=${STYLES:-gcc-pfe clang-fentry}
for_styles one
finish
