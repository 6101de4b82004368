#!/bin/bash
# The mount and a run-time directory or session file others can have
# written (issue 10, item 1): `utrace mount` refuses a run-time directory
# writable by group or others (one line naming it, exit 1, nothing mounted);
# mounted, a read that would use a refused file (a symbolic link in place of
# a buffer) fails with EPERM, and works again once the file is sound.
. "$(dirname "$0")/mount.lib"

[ -c /dev/fuse ] && [ -r /dev/fuse ] && [ -w /dev/fuse ] || skip "/dev/fuse is not usable"
mkdir -p mnt
mkdir -m 0777 run
chmod 0777 run
"$UTRACE" mount "$MNT" >m.out 2>m.err
expect_eq "mount: exit status" 1 $?
expect "mount: message" m.err <<EOF
utrace: mount: $PWD/run: writable by group or others (mode 0777): refused
EOF
if grep -q " $MNT fuse" /proc/mounts; then
	fail "mounted anyway"
	fusermount3 -u "$MNT"
fi
chmod 0700 run

do_mount
start_server s1
cd "$MNT" || exit 1
echo parse_request >set_ftrace_filter
echo function >current_tracer
run_req s1 1
D=$(echo "$TOP"/run/[0-9]*)
P=$(pid_of s1)
mv "$D/buf.0" "$TOP/buf.0.real"
ln -s "$TOP/buf.0.real" "$D/buf.0"
expect_eq "trace" EPERM "$(werr cat trace)"
expect_eq "the process's trace" EPERM "$(werr cat "processes/$P/trace")"
# trace_pipe refused, and still open while the file is made sound again: its
# reader must not go on to consume what the buffer holds (the close comes
# later; "trace again" found nothing, now and then, on a busy machine)
exec 8<trace_pipe
expect_eq "trace_pipe" EPERM "$(werr timeout 10 cat <&8)"
rm "$D/buf.0"
mv "$TOP/buf.0.real" "$D/buf.0"
sleep 0.5
funcs <trace >"$TOP/f.txt"
exec 8<&-
expect "trace again" "$TOP/f.txt" <<'EOF'
parse_request <-handle_request
EOF
alive
finish
