#!/bin/bash
# Functions called in signal handlers (raise() and a timer) are traced.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=s.dat
	record "$d" -- "$(prog signal "$s")" || fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<'EOF'
usr1 3 alrm 2
EOF
	report "$d" | funcs | sed -E 's/<-\[libc\]$/<-[libc]/' >f.txt
	expect "$s trace" f.txt <<'EOF'
main <-[libc]
sig_handler <-[libc]
sig_work <-sig_handler
sig_handler <-[libc]
sig_work <-sig_handler
sig_handler <-[libc]
sig_work <-sig_handler
sig_handler <-[libc]
sig_work <-sig_handler
sig_handler <-[libc]
sig_work <-sig_handler
EOF
	no_crash "$d.err" "$d.rerr"
}

for_styles one
finish
