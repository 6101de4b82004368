#!/bin/bash
# A function known by several names (symbols at one address,
# tests/progs/aliases.c) is one function for `utrace start` too: on a
# running process (start -P, checked against its objects before it is
# told) and as the template new processes take (each process matches the
# words against its own functions).  -l, -n and function commands take
# any name; the trace prints the name the function is listed by; a name of
# a function without a site is refused with the reason.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

# start_aliases STYLE: tests/progs/aliases.c serving on fd 7 (SERVER_PID)
start_aliases() {
	rm -f srv.in srv.out
	: >srv.out
	mkfifo srv.in
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog aliases "$1")" serve <srv.in >srv.out 2>srv.err &
	SERVER_PID=$!
	exec 7>srv.in
	_srv_lines=0
	server_cmd ping >/dev/null
}

one() {
	local s=$1 P
	rm -rf run
	P=$(prog aliases "$s")
	start_aliases "$s"
	check "$s start -P by other names" "$UTRACE" start -P "$SERVER_PID" -p function \
		-l al_area_impl -l al_volume -l '__al_*'
	server_cmd "run 1"
	show_funcs | sed 's/ <-.*//' | sort | uniq -c >c1.txt
	expect "$s other names" c1.txt <<'EOF'
      3 al_area
      2 al_getbuf
      2 al_vol_real
EOF
	check "$s notrace and a command by other names" "$UTRACE" start -P "$SERVER_PID" -p function \
		-l 'al_*' -n al_area_impl -l '__al_getbuf:traceoff:1'
	server_cmd "run 1"
	show_funcs >c2.txt
	expect "$s al_area excluded, traceoff at al_getbuf" c2.txt <<'EOF'
al_vol_real <-calls
al_vol_real <-calls
al_api <-calls
EOF
	# a name of a function without a site: refused with the reason, nothing changes
	"$UTRACE" start -P "$SERVER_PID" -p function -l al_quiet_impl 2>q.err
	expect_eq "$s no site: status" 2 $?
	grep -c "al_quiet_impl, another name of al_quiet, is in .* but has no site" q.err >q.txt
	expect "$s no site: why" q.txt <<<"1"
	server_stop

	# the template: a new process takes the words
	rm -rf run
	check "$s start before the program" "$UTRACE" start -p function -l al_area_impl -l al_hidden \
		-l al_api -l '__al_getbuf:traceoff'
	LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >a.out 2>a.err
	"$UTRACE" extract -o new.dat 2>ex.err || fail "$s extract: $(cat ex.err)"
	report new.dat | count_funcs >c3.txt
	expect "$s template" c3.txt <<'EOF'
al_api 1
al_area 3
EOF
	"$UTRACE" reset
}

for_styles one
finish
