#!/bin/bash
# function_graph: the kernel's graph output for a known program; graph
# filters; and the robustness matrix: programs that leave functions by
# longjmp, siglongjmp out of signal handlers, swapcontext, exceptions (in
# threads too), pthread_exit, exit, fork/vfork, backtrace() and recursion
# deeper than the shadow stack behave exactly as untraced, and their graph is
# well formed (pthread_exit and pthread_cancel run the cleanups and catch
# (...) blocks of traced frames); for a caught exception (plain, rethrown, through a cleanup)
# and for coroutines the graph itself is checked: the frames that catch
# close at their depth, the unwound ones print entry-only, and each stack's
# calls nest in that stack's frames.
. "$(dirname "$0")/../lib/common.sh"

# Durations and CPU numbers masked; the rest is the kernel's layout.
gmask() {
	sed -E -e 's/^ *[0-9]+\)/ N)/' -e 's/^ N\) [-+!#*@$ ] +[0-9]+(\.[0-9]+)? us +\|/ N) <DUR> us |/'
}

# One CPU for the graphs compared line by line: a thread that moves between
# its entry and its exit prints "} /* name */", as in the kernel (a busy
# machine moved one now and then).
PIN=()
command -v taskset >/dev/null && taskset -c 0 true 2>/dev/null && PIN=(taskset -c 0)

# graph STYLE PROG CASE: the masked graph (no header) of PROG CASE.
graph() {
	"${PIN[@]}" "$UTRACE" record -p function_graph -o x.dat -- "$(prog "$2" "$1")" "$3" >x.out 2>x.err ||
		fail "$1 $2 $3: record failed: $(cat x.err)"
	report x.dat | gmask | tail -n +5
}

# The graphs of exceptions and coroutines, line by line.
graphs() {
	local s=$1
	graph "$s" graph_exceptions catch >g.txt
	expect "$s exception caught: catcher and main close" g.txt <<'EOF'
 N)               |  main() {
 N)               |    e_catcher() {
 N)               |      e_middle() {
 N) <DUR> us |        e_thrower();
 N) <DUR> us |      }
 N) <DUR> us |    }
 N)               |    e_catcher() {
 N)               |      e_middle() {
 N)               |        e_thrower() {
 N) <DUR> us |      e_leaf();
 N) <DUR> us |    }
 N) <DUR> us |    e_leaf();
 N) <DUR> us |  }
EOF
	graph "$s" graph_exceptions rethrow >g.txt
	expect "$s exception rethrown from a nested try" g.txt <<'EOF'
 N)               |  main() {
 N)               |    e_outer() {
 N)               |      e_rethrower() {
 N)               |        e_middle() {
 N)               |          e_thrower() {
 N) <DUR> us |        e_leaf();
 N) <DUR> us |      e_leaf();
 N) <DUR> us |    }
 N) <DUR> us |    e_leaf();
 N) <DUR> us |  }
EOF
	# the destructor's function throws and catches while the first unwinds
	graph "$s" graph_exceptions cleanup >g.txt
	expect "$s exception through a cleanup frame" g.txt <<'EOF'
 N)               |  main() {
 N)               |    e_guard_catcher() {
 N)               |      e_guarded() {
 N)               |        e_middle() {
 N)               |          e_thrower() {
 N)               |        e_cleanup() {
 N)               |          e_thrower() {
 N) <DUR> us |        }
 N) <DUR> us |      e_leaf();
 N) <DUR> us |    }
 N) <DUR> us |    e_leaf();
 N) <DUR> us |  }
EOF
	# a coroutine nests below the call that first switched to it; main's
	# calls stay in main's frames
	graph "$s" graph_robust pingpong >g.txt
	expect "$s swapcontext ping-pong" g.txt <<'EOF'
 N)               |  main() {
 N)               |    case_pingpong() {
 N)               |      g_pp_resume() {
 N)               |        g_pp_co() {
 N) <DUR> us |          g_leaf();
 N)               |          g_pp_yield() {
 N) <DUR> us |      }
 N) <DUR> us |      g_leaf();
 N)               |      g_pp_resume() {
 N) <DUR> us |          }
 N) <DUR> us |          g_leaf();
 N)               |          g_pp_yield() {
 N) <DUR> us |      }
 N) <DUR> us |      g_leaf();
 N)               |      g_pp_resume() {
 N) <DUR> us |          }
 N) <DUR> us |        }
 N) <DUR> us |      }
 N) <DUR> us |      g_leaf();
 N) <DUR> us |    }
 N) <DUR> us |  }
EOF
	# main between the coroutine's two steps, at main's depth; the
	# coroutine ends into main through uc_link
	graph "$s" graph_robust context >g.txt
	expect "$s swapcontext: main between a coroutine's steps" g.txt <<'EOF'
 N)               |  main() {
 N)               |    case_context() {
 N)               |      g_coroutine() {
 N)               |        g_co_step() {
 N) <DUR> us |          g_leaf();
 N) <DUR> us |        }
 N) <DUR> us |      g_leaf();
 N)               |        g_co_step() {
 N) <DUR> us |          g_leaf();
 N) <DUR> us |        }
 N) <DUR> us |      } /* g_coroutine */
 N) <DUR> us |    }
 N) <DUR> us |  }
EOF
	# two coroutines on neighbouring stacks: b, started by a, nests in a
	graph "$s" graph_robust coroutines >g.txt
	expect "$s swapcontext: coroutines on neighbouring stacks" g.txt <<'EOF'
 N)               |  main() {
 N)               |    case_coroutines() {
 N)               |      g_co_a() {
 N)               |        g_co_yield() {
 N) <DUR> us |          g_leaf();
 N)               |          g_co_b() {
 N)               |            g_co_yield() {
 N) <DUR> us |              g_leaf();
 N) <DUR> us |          g_leaf();
 N) <DUR> us |        }
 N) <DUR> us |      }
 N) <DUR> us |              g_leaf();
 N) <DUR> us |            }
 N) <DUR> us |          } /* g_co_b */
 N) <DUR> us |    }
 N) <DUR> us |  }
EOF
}

one() {
	local s=$1 P
	P=$(prog single "$s")
	"${PIN[@]}" "$UTRACE" record -p function_graph -o g.dat -- "$P" >out 2>err
	expect_eq "$s single: status" 0 $?
	report g.dat | gmask >g.txt
	expect "$s single: graph" g.txt <<'EOF'
# tracer: function_graph
#
# CPU  DURATION                  FUNCTION CALLS
# |     |   |                     |   |   |   |
 N)               |  main() {
 N)               |    s_top() {
 N)               |      s_middle() {
 N) <DUR> us |        s_leaf();
 N) <DUR> us |        s_leaf();
 N) <DUR> us |      }
 N)               |      s_middle() {
 N) <DUR> us |        s_leaf();
 N) <DUR> us |        s_leaf();
 N) <DUR> us |      }
 N)               |      s_middle() {
 N) <DUR> us |        s_leaf();
 N) <DUR> us |        s_leaf();
 N) <DUR> us |      }
 N) <DUR> us |    }
 N) <DUR> us |    s_leaf();
 N) <DUR> us |  }
EOF
	# set_graph_function + max_graph_depth; set_graph_notrace; thresh
	"${PIN[@]}" "$UTRACE" record -p function_graph -g s_middle --max-graph-depth 1 -o g.dat -- "$P" 1 >out 2>err
	report g.dat | gmask | tail -n +5 >g.txt
	expect "$s -g s_middle --max-graph-depth 1" g.txt <<'EOF'
 N) <DUR> us |  s_middle();
EOF
	"${PIN[@]}" "$UTRACE" record -p function_graph --graph-notrace s_top -o g.dat -- "$P" 1 >out 2>err
	report g.dat | gmask | tail -n +5 >g.txt
	expect "$s --graph-notrace s_top" g.txt <<'EOF'
 N)               |  main() {
 N) <DUR> us |    s_leaf();
 N) <DUR> us |  }
EOF
	"${PIN[@]}" "$UTRACE" record -p function_graph --thresh 1000000 -o g.dat -- "$P" 1 >out 2>err
	report g.dat | gmask | tail -n +5 >g.txt
	expect "$s --thresh 1000000: nothing that slow" g.txt </dev/null
	report g.dat -O funcgraph-tail >/dev/null || fail "$s report -O funcgraph-tail"
	# options given to record are the file's defaults; report's -O override
	"${PIN[@]}" "$UTRACE" record -p function_graph -O funcgraph-proc -O nofuncgraph-cpu -o o.dat -- "$P" 1 >out 2>err
	report o.dat | sed -n 3p >h.txt
	expect "$s record -O funcgraph-proc -O nofuncgraph-cpu: header" h.txt <<'EOF'
#  TASK/PID         DURATION                  FUNCTION CALLS
EOF
	report o.dat -O funcgraph-cpu -O nofuncgraph-proc | sed -n 3p >h.txt
	expect "$s report -O overrides the file's options" h.txt <<'EOF'
# CPU  DURATION                  FUNCTION CALLS
EOF
	# bad input
	"${PIN[@]}" "$UTRACE" record -p function_graph -g no_such_fn -o g.dat -- "$P" >out 2>err
	expect_eq "$s -g no_such_fn: status" 2 $?
	grep -q "no_such_fn" err || fail "$s -g no_such_fn: message does not name it"
	"${PIN[@]}" "$UTRACE" record -p function_graph --max-graph-depth x -o g.dat -- "$P" >out 2>err
	expect_eq "$s --max-graph-depth x: status" 2 $?

	graphs "$s"

	# the robustness matrix
	local c p st1 st2
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
			"${PIN[@]}" "$UTRACE" record -p function_graph -o r.dat -- "$P" $c >rec.out 2>rec.err
			st2=$?
			expect_eq "$s $p $c: exit status" "$st1" "$st2"
			cmp -s plain.out rec.out || fail "$s $p $c: stdout differs: $(diff plain.out rec.out)"
			cmp -s plain.err rec.err || fail "$s $p $c: stderr differs: $(diff plain.err rec.err)"
			report r.dat >r.txt || fail "$s $p $c: report failed"
			no_crash r.dat.rerr
			# every line is a header, a graph line or a task-switch block
			if grep -vE '^(#|$| *[0-9]+\) | -+$)' r.txt | has .; then
				fail "$s $p $c: malformed lines: $(grep -vE '^(#|$| *[0-9]+\) | -+$)' r.txt | head -3)"
			fi
			grep -qE -- '-[0-9][0-9.]* us' r.txt && fail "$s $p $c: negative duration"
			grep -qE 'g_|x_|main' r.txt || fail "$s $p $c: no traced functions"
		done
	done
}

for_styles one
finish
