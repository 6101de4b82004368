#!/bin/bash
# Library calls under live control (issue 14): a running program started
# plain gets its GOT slots hooked when `utrace start -O plt` asks, by its
# agent, while it runs; the words select library functions as any other;
# -O noplt turns every hook off again (the calls go straight to the library:
# a word naming one selects nothing); function_graph through the hooks;
# an instance and a function command (traceoff) on library calls.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"
export LC_ALL=C

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	check "$s start -O plt" "$UTRACE" start -O plt -p function -l __isoc99_sscanf -l handle_request
	server_cmd "run 2"
	show_funcs >f1.txt
	expect "$s library call and site" f1.txt <<'X'
__isoc99_sscanf <-main
handle_request <-main
handle_request <-main
X
	check "$s start -O noplt" "$UTRACE" start -O noplt -p function -l handle_request
	server_cmd "run 1"
	show_funcs | sort | uniq -c | awk '{$1 = $1; print}' >f2.txt
	expect "$s hooks off" f2.txt <<'X'
1 handle_request <-main
X
	check "$s start -O noplt, a library word" "$UTRACE" start -O noplt -p function \
		-l __isoc99_sscanf -l handle_request
	server_cmd "run 1"
	show_funcs >f2.txt
	expect "$s hooks stay off" f2.txt <<<"handle_request <-main"
	# function_graph through the hooks, turned on again
	check "$s start graph" "$UTRACE" start -O plt -p function_graph -l fgets -l printf
	server_cmd "run 1"
	server_cmd "ping"
	"$UTRACE" show | events | sed -E 's/^ *[0-9]+\) +[0-9. +!#*@$]*us +\|/ D |/' | grep printf >f3.txt
	expect "$s graph" f3.txt <<<" D |  printf [libc]();"
	# an instance traces a library call; a function command on one fires
	check "$s start, traceoff on a library call" "$UTRACE" start -O plt -p function \
		-l handle_request -l 'puts:traceoff'
	check "$s instance" "$UTRACE" start -B lib -p function -l __isoc99_sscanf
	server_cmd "run 1"
	show_funcs -B lib >f4.txt
	expect "$s instance: library call" f4.txt <<<"__isoc99_sscanf <-main"
	server_cmd "ping"
	server_cmd "run 1"
	# (the fgets that was running under function_graph ends with its exit line)
	show_funcs | grep -v '/\*' >f5.txt
	expect "$s traceoff by puts" f5.txt <<<"handle_request <-main"
	# ping tries six sscanf formats, run one
	expect_eq "$s instance goes on" 8 "$(show_funcs -B lib | wc -l)"
	server_cmd "ping"
	expect_eq "$s still answering" pong "$REPLY"
	server_stop
	no_crash srv.err
}
STYLES=${STYLES:-gcc-pfe}
for_styles one
finish
