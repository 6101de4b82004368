#!/bin/bash
# A lossless record keeps every event, so events a thread wrote and the
# recorder never took from its buffer are a recorder's bug: said apart from
# the losses of -O drop and -O overwrite, with the process and thread they
# came from, and counted in the file as lost.  The test hook
# UTRACE_TEST_UNREAD makes the recorder leave every ring unread.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 P pid
	P=$(prog single "$s")
	UTRACE_TEST_UNREAD=1 record u.dat -- "$P" || fail "$s: record exited $?"
	expect "$s: stdout" u.dat.out <<<"single 13"
	sed -E -e 's/process [0-9]+ thread [0-9]+/process PID thread TID/' \
		-e 's/(report it with this: ).*\)$/\1DETAIL)/' u.dat.err >e.txt
	expect "$s: the loss, and whose" e.txt <<'EOF2'
utrace: 12 events lost: written by process PID thread TID and never read from its buffer (a utrace bug: please report it with this: DETAIL)
EOF2
	grep -qE 'ring head [0-9]+ tail [0-9]+ written 12;' u.dat.err ||
		fail "$s: the ring's state is not said: $(cat u.dat.err)"
	pid=$(sed -nE 's/.*process ([0-9]+) thread ([0-9]+).*/\1 \2/p' u.dat.err)
	[ "${pid% *}" = "${pid#* }" ] || fail "$s: not the main thread: $pid"
	report u.dat | grep -c ' <-' >n.txt
	expect "$s: no event" n.txt <<<"0"
	report u.dat | sed -n 3p | sed -E 's/#P:[0-9]+/#P:N/' >h.txt
	expect "$s: counted in the file" h.txt <<'EOF2'
# entries-in-buffer/entries-written: 0/12   #P:N
EOF2
	no_crash u.dat.err u.dat.rerr
}

for_styles one
finish
