#!/bin/bash
# `utrace mount DIR` where the daemon of an earlier mount on DIR was killed
# (kill -9): the dead mount (every access ENOTCONN) is detached and the new
# one serves; a second `utrace mount` on a live mount is refused and leaves
# it serving.
. "$(dirname "$0")/mount.lib"

do_mount
echo function >"$MNT/current_tracer"
kill -9 "$_daemon"
wait "$_daemon" 2>/dev/null
_daemon=
expect_eq "dead mount" "Transport endpoint is not connected" \
	"$(head -c 100 "$MNT/available_tracers" 2>&1 | sed 's/.*: //')"

# mount again, by a relative path with a trailing slash, as users type it
if ! (cd "$TOP" && "$UTRACE" mount mnt/ 2>"$TOP/mount2.err"); then
	cat "$TOP/mount2.err"
	fail "utrace mount on the dead mount failed"
	finish
fi
expect "notice" "$TOP/mount2.err" <<EOF2
utrace: mount: $MNT: replacing a mount whose daemon is gone
EOF2
alive
# the template written through the dead mount is kept in $UTRACE_DIR
expect_eq "template kept" function "$(cat "$MNT/current_tracer")"
echo function_graph >"$MNT/current_tracer"
expect_eq "serves writes" function_graph "$(cat "$MNT/current_tracer")"
expect_eq "one mount on DIR" 1 "$(grep -c " $MNT fuse" /proc/mounts)"

# a live mount is not replaced
"$UTRACE" mount "$MNT" 2>"$TOP/mount3.err"
expect_eq "mount on a live mount: exit status" 1 "$?"
expect "mount on a live mount" "$TOP/mount3.err" <<EOF2
utrace: mount: $MNT: already mounted (a utrace mount is serving there; 'utrace umount $MNT' first)
EOF2
alive
expect_eq "still one mount" 1 "$(grep -c " $MNT fuse" /proc/mounts)"
expect_eq "still its settings" function_graph "$(cat "$MNT/current_tracer")"
finish
