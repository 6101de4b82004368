#!/bin/bash
# USDT probes enabled and disabled live (issue 13): `utrace start -e` in a
# running process turns the chosen probes into traps and raises their
# semaphores, `utrace show` prints their events named as in a trace.dat,
# and a configuration without them turns them back into nops and lowers
# the semaphores (the guarded code stops running), as the kernel's uprobes
# do when a probe is disabled.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/usdt-live.sh"
export UTRACE_DIR=$PWD/run

P=$(prog usdt gcc-pfe)
usdt_live_start "$P"

cmd "run 1"
expect_eq "nothing enabled: the guarded code does not run" "ran 1 guarded 0" "$REPLY"

"$UTRACE" start -P "$pid" -e utest:pair -e 'utest:gu*' 2>start.err || fail "start -e exited $?: $(cat start.err)"
cmd "run 2"
expect_eq "guarded enabled: its semaphore is raised" "ran 2 guarded 2" "$REPLY"
"$UTRACE" show -P "$pid" 2>show.err | events | mask >show.txt
expect "show: the enabled probes' events" show.txt <<'EOF'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=1 arg2=-1000
usdt-<PID> [<CPU>] ..... <TS>: guarded: arg1=1 arg2=1
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=2 arg2=-2000
usdt-<PID> [<CPU>] ..... <TS>: guarded: arg1=2 arg2=2
EOF
grep -q '^# tracer: nop' <("$UTRACE" show -P "$pid" 2>/dev/null) || fail "start -e alone does not leave the nop tracer"

# Another configuration without events: the probes are nops again, the
# semaphore is lowered, nothing more is recorded.
"$UTRACE" start -P "$pid" -p nop 2>start2.err || fail "start without -e exited $?: $(cat start2.err)"
cmd "run 3"
expect_eq "disabled: the semaphore is down again" "ran 3 guarded 2" "$REPLY"
"$UTRACE" show -P "$pid" 2>/dev/null | events | grep -c 'pair:' >after.txt
expect "no events after disabling" after.txt <<'EOF'
0
EOF

# A word naming no probe is refused (exit 2) and changes nothing.
"$UTRACE" start -P "$pid" -e utest:pair -e utest:nosuch 2>bad.err
expect_eq "unknown event: exit status" 2 "$?"
expect "unknown event: message" bad.err <<'EOF'
utrace: set_event: 'utest:nosuch' names no USDT probe of the traced processes
EOF
cmd "run 1"
expect_eq "an unknown event enables nothing" "ran 1 guarded 2" "$REPLY"

# pipe_start NAME: `show --pipe` of the program into NAME.txt, in the background
pipe_start() {
	"$UTRACE" show --pipe -P "$pid" >"$1.txt" 2>"$1.err" &
	reader=$!
}

# pipe_stop NAME REGEX: once NAME.txt has a line matching REGEX (5 s at
# most), the reader stopped and its lines masked into NAME.masked
pipe_stop() {
	local i
	for ((i = 0; i < 500; i++)); do
		grep -qE "$2" "$1.txt" && break
		sleep 0.01
	done
	kill "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
	mask <"$1.txt" >"$1.masked"
}

# trace_pipe names the events as the file does
"$UTRACE" start -P "$pid" -e utest:pair 2>/dev/null || fail "start -e again exited $?"
pipe_start pipe
sleep 0.3
cmd "run 1"
pipe_stop pipe 'pair:'
expect "trace_pipe" pipe.masked <<'EOF'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=7 arg2=-7000
EOF

# an event already in the buffer when the reader starts is named too (its
# first pass decoded it before it had read the probes: probe_ADDR)
cmd "run 1"
pipe_start pipe2
pipe_stop pipe2 .
expect "trace_pipe: an event from before the reader" pipe2.masked <<'EOF'
usdt-<PID> [<CPU>] ..... <TS>: pair: arg1=8 arg2=-8000
EOF

echo quit >&7
exec 7>&-
wait "$pid"
expect_eq "exit status" 0 "$?"
[ -s err.txt ] && fail "the program printed on stderr: $(cat err.txt)"
finish
