#!/bin/bash
# The run-time directory and the session files are used only if nobody but
# the user (or root) can have written them (issue 10, item 1): a directory
# of one's own that group or others may write, a symbolic link in place of
# the directory, the template, a buffer, a session's config or control
# block, a buffer owned by another user or group-writable.  The traced
# program runs untraced and says why in one line; every tool refuses with a
# message naming the path and what is wrong, and exits 1.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}
P=$(prog single "$S")

# untraced WHY: the program runs as without utrace, saying "WHY; ...".
untraced() {
	LD_PRELOAD="$UT_BUILD/libutrace.so" "$P" >p.out 2>p.err
	expect_eq "$1: program status" 0 $?
	expect "$1: program output" p.out <<'EOF'
single 13
EOF
	expect "$1: program message" p.err <<EOF
utrace: $1; the program runs untraced
EOF
}

# refused WHY COMMAND...: exit 1 and the one line "utrace: WHY".
refused() {
	local why=$1 st
	shift
	timeout 20 "$UTRACE" "$@" >t.out 2>t.err </dev/null
	st=$?
	expect_eq "$*: exit status" 1 "$st"
	expect "$*: message" t.err <<EOF
utrace: $why
EOF
	no_crash t.err
}

# The user's own run-time directory, writable by others.
for mode in 0777 0770 0702 1777; do
	rm -rf run
	mkdir run
	chmod "$mode" run
	why="$PWD/run: writable by group or others (mode $mode): refused"
	untraced "$why"
	expect_eq "mode $mode: sessions made" "" "$(ls -A run)"
	UTRACE_QUIET=1 LD_PRELOAD="$UT_BUILD/libutrace.so" "$P" >p.out 2>p.err
	expect_eq "mode $mode, UTRACE_QUIET: status, stderr" "0 " "$? $(cat p.err)"
	refused "$why" start -p function
	refused "$why" show
	refused "$why" ps
done

# A symbolic link in place of the run-time directory, and of the template.
rm -rf run real
mkdir -m 0700 real
ln -s real run
untraced "$PWD/run: a symbolic link: refused"
refused "$PWD/run: a symbolic link: refused" stop
rm -f run
mkdir -m 0700 run
printf 'tracer function\n' >elsewhere
ln -s "$PWD/elsewhere" run/config
untraced "$PWD/run/config: a symbolic link: refused"
refused "$PWD/run/config: a symbolic link: refused" stop

# A running program's session files.
rm -rf run
mkdir -m 0700 run
server_start "$S"
check "start" "$UTRACE" start -p function -l parse_request
server_cmd "run 1"
D=$(echo "$PWD"/run/[0-9]*)
show_funcs >ok.txt
expect "before" ok.txt <<'EOF'
parse_request <-handle_request
EOF
# swap FILE: FILE becomes a symbolic link to its own copy
swap() { mv "$D/$1" "$1.real" && ln -s "$PWD/$1.real" "$D/$1"; }
unswap() { rm "$D/$1" && mv "$1.real" "$D/$1"; }
swap buf.0
why="$D/buf.0: a symbolic link: refused"
refused "$why" show
refused "$why" show --pipe -P "$SERVER_PID" # (timeout: before, it waited for the end)
refused "$why" extract -o x.dat
unswap buf.0
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then # another user's file
	chown nobody "$D/buf.0"
	refused "$D/buf.0: owned by uid $(id -u nobody), not by you (uid 0): refused" show
	chown root "$D/buf.0"
fi
chmod 0660 "$D/buf.0"
refused "$D/buf.0: writable by group or others (mode 0660): refused" show
chmod 0600 "$D/buf.0"
swap config
refused "process $SERVER_PID: $D/config: a symbolic link: refused" start -P "$SERVER_PID" -p function
refused "$D/config: a symbolic link: refused" start -p function
unswap config
swap ctl
refused "$D/ctl: a symbolic link: refused" ps
unswap ctl
chmod 0777 "$D"
refused "$D: writable by group or others (mode 0777): refused" ps
chmod 0700 "$D"
# all back as it was: it works again
server_cmd "run 1"
show_funcs >ok2.txt
expect "after" ok2.txt <<'EOF'
parse_request <-handle_request
parse_request <-handle_request
EOF
server_stop
expect_eq "program status" "" "$(cat srv.err)"
finish
