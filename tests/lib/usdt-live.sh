#!/bin/bash
# Shared by the live USDT tests (tests/live/800, 810, 830, 860, 870), sourced
# after common.sh: a test program (tests/progs/usdt.c's -i mode) that reads
# one command a line from in.fifo and answers one line each in out.txt.
#
# usdt_live_start PROG [VAR=VALUE..]: PROG -i under libutrace.so (with the
# variables set), its pid in $pid, its commands on fd 7; checks that it
# answers.  cmd LINE: send LINE, wait for its reply line, leave it in REPLY.

usdt_live_start() {
	local p=$1
	shift
	rm -f in.fifo
	mkfifo in.fifo
	: >out.txt
	env "$@" LD_PRELOAD="$UT_BUILD/libutrace.so" "$p" -i <in.fifo >out.txt 2>err.txt &
	# shellcheck disable=SC2034 # used by the scripts that source this file
	pid=$!
	exec 7>in.fifo
	lines=0
	cmd ping
	expect_eq "the program answers" pong "$REPLY"
}

cmd() {
	local i
	echo "$1" >&7
	lines=$((lines + 1))
	for ((i = 0; i < 1000; i++)); do
		[ "$(wc -l <out.txt)" -ge $lines ] && break
		sleep 0.01
	done
	REPLY=$(sed -n "${lines}p" out.txt)
}
