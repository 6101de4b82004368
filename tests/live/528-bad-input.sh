#!/bin/bash
# Bad input (issue 17): the readers and the traced program meet a session
# root filled by someone else's files, buffer files deleted or cut short,
# and a full file system.  Each time: a clear message (or none, for what
# is not a session), the rest is read and traced, nothing crashes, the
# program's result is unchanged.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

P=$(prog threadchurn gcc-pfe)
calls() { grep -c ' c_work <-' "$1"; }

# --- a session root holding other things than sessions
rm -rf run
check "start" "$UTRACE" start -p function -l c_work
echo junk >run/junk
echo junk >run/12345.678       # a file named like a session
mkdir run/999999.1              # a session dir without ctl
mkdir run/999998.2
head -c 1000 /dev/urandom >run/999998.2/ctl # a ctl of the wrong size
mkdir run/999997.3
: >run/999997.3/ctl
mkfifo run/777.1
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 3 5 >prog.out 2>prog.err || fail "junk: program exited $?"
expect_eq "junk: the program's result" "threadchurn 3 threads total 90" "$(cat prog.out)"
"$UTRACE" show >show.txt 2>show.err || fail "junk: show exited $?: $(cat show.err)"
expect_eq "junk: show" 15 "$(calls show.txt)"
"$UTRACE" ps >ps.txt 2>ps.err || fail "junk: ps exited $?"
expect_eq "junk: ps lists the program" 1 "$(grep -c threadchurn ps.txt)"
"$UTRACE" show --pipe -P "$(ls run | sed -n 's/^\([0-9]*\)\.[0-9]\{9,\}$/\1/p' | head -1)" \
	>pipe.txt 2>pipe.err || fail "junk: show --pipe exited $?: $(cat pipe.err)"
expect_eq "junk: show --pipe" 15 "$(calls pipe.txt)"
check "junk: reset" "$UTRACE" reset
no_crash show.err ps.err pipe.err prog.err
# a symbolic link named like a session is refused by name (docs/shm-abi.md,
# Who may write): the readers say so and exit 1, the program is traced
check "start" "$UTRACE" start -p function -l c_work
ln -s /etc run/888.1
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 3 5 >prog.out 2>prog.err || fail "link: program exited $?"
expect_eq "link: the program's result" "threadchurn 3 threads total 90" "$(cat prog.out)"
"$UTRACE" show >show.txt 2>show.err
expect_eq "link: show's status" 1 $?
sed "s|$PWD|DIR|" show.err >e.txt
expect "link: show says why" e.txt <<'EOF'
utrace: DIR/run/888.1: a symbolic link: refused
EOF
rm run/888.1
"$UTRACE" show >show.txt 2>show.err || fail "link gone: show exited $?: $(cat show.err)"
expect_eq "link gone: show" 15 "$(calls show.txt)"

# --- buffers deleted or cut short under the readers: said, the others read
rm -rf run
check "start" "$UTRACE" start -p function -l c_work
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 3 5 >prog.out 2>prog.err || fail "gone: program exited $?"
s=$(ls -d run/[0-9]*)
rm "$s/buf.1"
: >"$s/buf.2"
"$UTRACE" show >show.txt 2>show.err || fail "gone: show exited $?: $(cat show.err)"
expect_eq "gone: show prints the buffer left" 5 "$(calls show.txt)"
sed -E 's/process [0-9]+ thread [0-9]+/process P thread T/; s/\(\/.*\/buf/(DIR\/buf/' show.err >e.txt
expect "gone: show says which are gone" e.txt <<'EOF'
utrace: warning: process P thread T: its buffer was deleted or cut short (no such file); its events are lost, the others are read
utrace: warning: process P thread T: its buffer was deleted or cut short (DIR/buf.2: 0 bytes, shorter than the 4096 its format needs); its events are lost, the others are read
EOF
"$UTRACE" extract -o x.dat 2>extract.err || fail "gone: extract exited $?"
expect_eq "gone: extract writes the rest" 5 "$(report x.dat | grep -c ' c_work <-')"
expect_eq "gone: extract says so" 2 "$(grep -c 'deleted or cut short' extract.err)"
no_crash show.err extract.err

# --- a full file system under the session root (a 1 MiB tmpfs): the
# program goes on (a buffer page it cannot get no longer kills it with
# SIGBUS), says so once, and what it wrote before is read
mkdir small
if mount -t tmpfs -o size=1m tmpfs small 2>/dev/null; then
	trap 'umount "$PWD/small" 2>/dev/null' EXIT
	export UTRACE_DIR=$PWD/small/run
	check "full: start" "$UTRACE" start -p function -b 512
	LD_PRELOAD=$UT_BUILD/libutrace.so "$P" 20 20000 >prog.out 2>prog.err
	expect_eq "full: the program's status" 0 $?
	expect_eq "full: the program's result" "threadchurn 20 threads total 8000400000" \
		"$(cat prog.out)"
	sed -E 's/^utrace: \/.*: no space/utrace: SESSION: no space/' prog.err >e.txt
	expect "full: said once" e.txt <<'EOF'
utrace: SESSION: no space left for the trace buffers (file system full): threads traced from now on may not be seen; the program goes on
EOF
	"$UTRACE" show >show.txt 2>show.err || fail "full: show exited $?: $(cat show.err)"
	n=$(calls show.txt)
	[ "$n" -gt 1000 ] || fail "full: show printed $n calls"
	# losses or none, as the threads' timing has it; but no buffer said to be gone
	grep -vE '^utrace: [0-9]+ events lost \(buffers full or overwritten; try a larger -b\)$' \
		show.err >e.txt
	expect "full: show reads on, no thread's buffer said to be gone" e.txt </dev/null
	"$UTRACE" extract -o /dev/null 2>extract.err || fail "full: extract exited $?"
	no_crash show.err extract.err prog.err
	umount small
	trap - EXIT
else
	say "full: cannot mount a tmpfs here: not checked"
fi
finish
