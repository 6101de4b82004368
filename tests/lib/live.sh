# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Helpers for the live-control tests (tests/live, tests/mount): a traced
# program that runs until told to stop, driven line by line.
#
#   . "$(dirname "$0")/../lib/common.sh"; . "$UT_TESTS/lib/live.sh"
#   server_start STYLE [NAME]   tests/progs/server with libutrace preloaded;
#                               sets SERVER_PID (stdin: fd 7 for NAME=srv)
#   server_cmd "run 2"          send a line and wait for its reply (REPLY)
#   server_stop                 quit and reap
#
# Everything lives in this test's directory: UTRACE_DIR=$PWD/run keeps
# other tests' processes out of sight.
export UTRACE_DIR=$PWD/run
SERVER_PID=
_srv_lines=0

server_start() {
	local style=$1
	rm -f srv.in srv.out
	: >srv.out
	mkfifo srv.in
	LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog server "$style")" <srv.in >srv.out 2>srv.err &
	SERVER_PID=$!
	exec 7>srv.in
	_srv_lines=0
	server_cmd ping >/dev/null
}

# server_cmd LINE: the reply line in REPLY (10 s at most).
server_cmd() {
	local i
	echo "$1" >&7
	_srv_lines=$((_srv_lines + 1))
	for ((i = 0; i < 1000; i++)); do
		[ "$(wc -l <srv.out)" -ge $_srv_lines ] && break
		sleep 0.01
	done
	REPLY=$(sed -n "${_srv_lines}p" srv.out)
	[ -n "$REPLY" ] || fail "server: no reply to '$1'"
}

server_stop() {
	echo quit >&7 2>/dev/null
	exec 7>&-
	wait "$SERVER_PID" 2>/dev/null
}

# Events of `utrace show` (or a trace file's report) as "func <-parent" lines.
show_funcs() { "$UTRACE" show "$@" | funcs; }
