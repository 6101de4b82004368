#!/bin/bash
# Readers are bounded by what they read, not by the history: a process ran
# 1200 short threads one after another, each leaving its buffer.  show and
# extract of it hold a few files open and little memory -- checked in
# /proc while show is held writing into a full pipe, in the middle of its
# merge, and by running them with at most 32 open files -- and print every
# call (extract + report the same bytes).
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

S=${STYLES%% *}
N=1200
# small rings: all the exited threads' fit under buffer_total_size_kb (64 MiB)
check "template" "$UTRACE" start -p function -b 16 -l 'sq_*'
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog seqthreads "$S")" $N 3 </dev/null >prog.out ||
	fail "program"
expect_eq "program" "threads $N 7800" "$(cat prog.out)"

# show, held by a reader that does not read yet: where is it, what does it hold?
mkfifo out.fifo
base=$(ls /proc/$$/fd | wc -l) # what show inherits from this shell
"$UTRACE" show >out.fifo 2>show.err &
pid=$!
exec 8<out.fifo
held=
for ((i = 0; i < 2000; i++)); do
	case $(cat /proc/$pid/wchan 2>/dev/null) in *pipe_write*) held=1 && break ;; esac
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
[ -n "$held" ] || fail "show never waited on its full pipe"
nfd=$(ls /proc/$pid/fd 2>/dev/null | wc -l)
hwm=$(awk '/^VmHWM:/ {print $2}' /proc/$pid/status 2>/dev/null)
cat <&8 >show.txt
exec 8<&-
wait $pid
expect_eq "show status" 0 $?
# what it inherited, the one spool and a little slack, not a file per buffer
say "show over $N buffers: $nfd files open ($base inherited), peak resident ${hwm} kB"
[ "$nfd" -le $((base + 3)) ] || fail "show held $nfd files open over $N buffers"
# the whole program is ~8 MB resident; a spool and a batch per buffer were 60+ MB here
[ "${hwm:-0}" -le 32768 ] || fail "show's peak resident memory ${hwm} kB over $N buffers"

count_funcs <show.txt >c.txt
expect "every call" c.txt <<EOF
sq_done 1
sq_thread $N
sq_work $((3 * N))
EOF
expect_eq "header" "entries-in-buffer/entries-written: $((4 * N + 1))/$((4 * N + 1))" \
	"$(grep -oE 'entries-in-buffer/entries-written: [0-9]+/[0-9]+' show.txt)"

# a limit of 32 open files: a reader needing a file per buffer fails
(
	ulimit -n 32
	"$UTRACE" show >show32.txt 2>show32.err
) || fail "show with 32 files: $(cat show32.err)"
check "show with 32 files: the same" cmp show.txt show32.txt
(
	ulimit -n 32
	"$UTRACE" extract -o x.dat >x.out 2>x.err
) || fail "extract with 32 files: $(cat x.err)"
report x.dat >r.txt
check "show = extract + report" cmp show.txt r.txt
no_crash show.err show32.err x.err x.dat.rerr
finish
