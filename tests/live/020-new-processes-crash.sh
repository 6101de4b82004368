#!/bin/bash
# The top level acts on processes started later too (they start with the
# template); -P acts on one process only; a process killed with SIGKILL
# keeps its trace, which extract recovers (then removes the dead session);
# another user gets "permission denied".
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1 P
	rm -rf run
	P=$(prog single "$s")
	check "$s start before the program" "$UTRACE" start -p function -l 's_*'
	LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >single.out 2>single.err
	expect "$s single output" single.out <<'EOF'
single 13
EOF
	[ -s single.err ] && fail "$s single stderr: $(cat single.err)"
	"$UTRACE" extract -o new.dat 2>ex.err || fail "$s extract: $(cat ex.err)"
	report new.dat | count_funcs >c.txt
	expect "$s new process traced with the template" c.txt <<'EOF'
s_leaf 7
s_middle 3
s_top 1
EOF
	expect_eq "$s dead session removed after extract" 0 "$(ls run | grep -c '^[0-9]')"

	server_start "$s"
	# the template's s_* matches nothing here: the server traces nothing
	server_cmd "run 1"
	expect_eq "$s template, no match" 0 "$("$UTRACE" show | funcs | wc -l)"
	check "$s start -P" "$UTRACE" start -P "$SERVER_PID" -p function -l handle_request
	server_cmd "run 3"
	echo crash >&7
	wait "$SERVER_PID" 2>/dev/null
	"$UTRACE" ps | awk 'NR > 1 {print $7}' >ps.txt
	expect "$s killed: exited" ps.txt <<'EOF'
exited
EOF
	"$UTRACE" extract -P "$SERVER_PID" -o k.dat 2>ex.err || fail "$s extract killed: $(cat ex.err)"
	report k.dat | funcs >k.txt
	expect "$s trace of the killed process" k.txt <<'EOF'
handle_request <-main
handle_request <-main
handle_request <-main
EOF
	exec 7>&-
	"$UTRACE" reset
}

for_styles one

# Another user: EACCES, from both extract/show and start.
if id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	rm -rf run
	server_start gcc-pfe
	chmod 755 "$PWD" "$UT_BUILD" 2>/dev/null
	setpriv --reuid=nobody --regid=nogroup --clear-groups env UTRACE_DIR= \
		"$UTRACE" start -P "$SERVER_PID" -p function >other.out 2>&1
	expect_eq "other user: start status" 1 $?
	grep -q "permission denied" other.out || fail "other user: $(cat other.out)"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		ls "$UTRACE_DIR" >/dev/null 2>&1 && fail "other user can list the sessions"
	perms=$(stat -c %a run "$(ls -d run/[0-9]*)" "$(ls -d run/[0-9]*)/ctl" | tr '\n' ' ')
	expect_eq "session permissions" "700 700 600 " "$perms"
	server_stop
fi
finish
