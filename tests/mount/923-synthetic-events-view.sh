#!/bin/bash
# One list of synthetic events, as the kernel's (issue 13, item 9):
# processes/PID/synthetic_events is a view of the top level's (reads show
# it, writes change it for the template and every process), errors go to
# the error_log of the directory written in; dynamic_events lists and takes
# them with the kernel's s:/-: words; processes/PID/README is the top
# level's.  A traced shell started by a traced program (so the pid also
# has the session of the image exec replaced) writes the top-level list
# without waiting on the agent of that old image (it went with it).
. "$(dirname "$0")/mount.lib"

do_mount
start_server s1
P=$(pid_of s1)
cd "$MNT" || exit 1

expect_eq "a view of the top level's list" OK "$(w "processes/$P/synthetic_events" 'lat u64 us; pid_t pid')"
expect_eq "the top level lists it" "lat	u64 us; pid_t pid" "$(cat synthetic_events)"
expect_eq "and the process's directory too" "lat	u64 us; pid_t pid" "$(cat "processes/$P/synthetic_events")"
expect_eq "an event of the process" OK "$(test -d "processes/$P/events/synthetic/lat" && echo OK)"
expect_eq "the kernel's old format (no ';') and strings" OK \
	"$(a "processes/$P/synthetic_events" 'wakeup u64 lat pid_t pid char comm[16]')"
expect "listed as the kernel lists them" synthetic_events <<'EOF2'
lat	u64 us; pid_t pid
wakeup	u64 lat; pid_t pid; char[16] comm
EOF2
expect "dynamic_events" dynamic_events <<'EOF2'
s:synthetic/lat	u64 us; pid_t pid
s:synthetic/wakeup	u64 lat; pid_t pid; char[16] comm
EOF2
expect_eq "-: removes" OK "$(a "processes/$P/dynamic_events" '-:synthetic/wakeup')"
expect_eq "s: defines" OK "$(a dynamic_events 's:more s32 x')"
expect_eq "gone and added" "lat more" "$(cut -f1 synthetic_events | tr '\n' ' ' | sed 's/ $//')"
expect_eq "-: of nothing" ENOENT "$(a dynamic_events '-:nosuch')"
expect_eq "a kprobe" EINVAL "$(a dynamic_events 'p:myprobe do_sys_open')"

# errors: the kernel's messages and carets, in the error_log of the directory written in
echo >"processes/$P/error_log"
echo >error_log
expect_eq "bad array" EINVAL "$(a "processes/$P/synthetic_events" 'bad char s[257]')"
expect_eq "another group" EINVAL "$(a "processes/$P/dynamic_events" 's:junk/ev char s[')"
sed -E 's/^\[ *[0-9]+\.[0-9]{6}\]/[TS]/' "processes/$P/error_log" >"$TOP/err.txt"
expect "in the process's error_log" "$TOP/err.txt" <<'EOF2'
[TS] synthetic_events: error: Invalid array specification
  Command: bad char s[257]
                    ^
[TS] synthetic_events: error: Command must be of the form: s or -:[synthetic/]<name> field[;field] ...
  Command: s:junk/ev char s[
           ^
EOF2
expect_eq "not the top level's" "" "$(cat error_log)"
expect_eq "README there: the top level's" "$(cat README)" "$(cat "processes/$P/README")"

# a traced shell, exec'ed by a traced program (two sessions of its pid)
LD_PRELOAD=$UT_BUILD/libutrace.so timeout 30 sh -c \
	'cd "$1/processes/$$" && echo "fromsh u64 x" >> synthetic_events' _ "$MNT" 2>"$TOP/sh.err"
# (the old image's agent never answers: ETIMEDOUT, "Connection timed out", after 5 s)
expect_eq "the traced shell's write" "0: " "$?: $(cat "$TOP/sh.err")"
expect_eq "listed" 1 "$(grep -c '^fromsh' synthetic_events)"
expect_eq "> empties the list" OK "$(w "processes/$P/synthetic_events" '')"
expect_eq "empty" "" "$(cat synthetic_events)"
alive
finish
