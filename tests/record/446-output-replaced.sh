#!/bin/bash
# An existing trace file is replaced by a new one, not truncated and
# rewritten: ext4 writes back all the data of a file truncated then written
# when it is closed (auto_da_alloc), which cost 110 ms after the program on
# a 200 MB trace here.  So a hard link to the old file keeps the old trace,
# and outputs that are not regular files (a link to one, /dev/null) are
# written through as before; a pipe gets the trace at the end.
. "$(dirname "$0")/../lib/common.sh"

P=$(prog single "${STYLES%% *}")

record old.dat -- "$P" || fail "record exited $?: $(cat old.dat.err)"
ln old.dat kept.dat
before=$(stat -c %i old.dat)
md5=$(md5sum <kept.dat)
record old.dat -p function_graph -- "$P" || fail "record again exited $?: $(cat old.dat.err)"
check "a new file" [ "$(stat -c %i old.dat)" != "$before" ]
expect_eq "the hard link keeps the first trace" "$md5" "$(md5sum <kept.dat)"
check "the new trace is the graph" grep -q 'funcgraph_entry\|{' <(report old.dat)

ln -s old.dat via-link.dat
record via-link.dat -- "$P" || fail "record through a link exited $?: $(cat via-link.dat.err)"
check "the link is still a link" [ -L via-link.dat ]
check "written through the link" grep -q 'function' <(report old.dat)
# a character device of our own (/dev/null's numbers): pwrite works, it has
# no size to cut; record used to fail on it and then unlink the path
mknod ./null c 1 3 2>/dev/null || skip "mknod is not allowed here"
"$UTRACE" record -o ./null -- "$P" >/dev/null 2>null.err || fail "record -o a device: $(cat null.err)"
check "the device is still a device" [ -c ./null ]

# a pipe (through a link to it): made in a temp file, copied into it at the end
mkfifo fifo
ln -s fifo to-fifo
cat fifo >piped.dat &
"$UTRACE" record -o to-fifo -- "$P" >/dev/null 2>pipe.err || fail "record -o a pipe: $(cat pipe.err)"
wait
check "the link to the pipe is still there" [ -L to-fifo ]
report piped.dat >piped.txt || fail "report of the piped trace: $(cat piped.dat.rerr)"
expect_eq "the piped trace's events" "$(report old.dat | events | wc -l)" "$(events <piped.txt | wc -l)"
finish
