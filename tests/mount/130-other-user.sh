#!/bin/bash
# Nobody but the mounting user gets in: another user's reads and writes of
# the mount fail with EACCES, and the sessions' files are 0700/0600.
. "$(dirname "$0")/mount.lib"

id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null || skip "no user nobody / setpriv"
do_mount
start_server s1
P=$(pid_of s1)
chmod 755 "$TOP"
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
out=$(as_nobody cat "$MNT/current_tracer" 2>&1)
case $out in *"Permission denied"*) ;; *) fail "other user read: $out" ;; esac
out=$(as_nobody bash -c "echo function > '$MNT/current_tracer'" 2>&1)
case $out in *"Permission denied"*) ;; *) fail "other user write: $out" ;; esac
out=$(as_nobody ls "$MNT/processes" 2>&1)
case $out in *"Permission denied"*) ;; *) fail "other user listing: $out" ;; esac
expect_eq "tracer unchanged" nop "$(cat "$MNT/processes/$P/current_tracer")"
out=$(as_nobody cat "$UTRACE_DIR"/*/ctl 2>&1)
case $out in *"Permission denied"*) ;; *) fail "other user reads a session: $out" ;; esac
alive
finish
