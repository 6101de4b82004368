#!/bin/bash
# Version 7 is written in place for every CPU: the first CPU's chunks right
# after the buffer section's header, each other CPU's in a region of its
# own further on in the same (sparse) file, the holes taken out at the end
# (COLLAPSE_RANGE: ext4, xfs, f2fs).  There no CPU waits in a temp file to
# be copied after the program any more: the recorder opens no "OUT.cpuN"
# file.  On tmpfs, which cannot take holes out, the other CPUs keep their
# temp files.  Either way the file is read back whole by utrace and
# trace-cmd, with the counts the program made, and is not sparse.
. "$(dirname "$0")/../lib/common.sh"

command -v strace >/dev/null || skip "strace is not installed"
[ "$(nproc)" -ge 2 ] || skip "one CPU: one region"
P=$(prog threads "${STYLES%% *}")
N=50000 # per thread: t_work N, t_a N, t_b 2N
SECCOMP=()
strace -f --seccomp-bpf -qq -e trace=openat -o /dev/null true 2>/dev/null && SECCOMP=(--seccomp-bpf)

want() {
	printf 'main 1\nt_a %d\nt_b %d\nt_main_done 1\nt_thread 4\nt_work %d\n' $((4 * N)) $((8 * N)) $((4 * N))
}

one_dir() { # DIR LABEL TEMPS (the temp files expected: 0 or 1)
	local d=$1 label=$2 temps=$3 cpus got
	# LeakSanitizer cannot run under ptrace (the ASan build): leaks are checked elsewhere.
	# --seccomp-bpf: only openat stops the processes.  Stopping at every system
	# call, strace (a normal thread, on a machine busy with other tests) held
	# the drainer up for over a second, the lossless program's wait limit, and
	# its threads dropped events (seen once: 277,817 of 800,006 lost).
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace "${SECCOMP[@]}" -f -qq -e trace=openat -o "st.$label" \
		"$UTRACE" record -o "$d/t.dat" -- "$P" 4 $N pin >"$label.out" 2>"$label.err" ||
		fail "$label: record exited $?: $(tail -3 "$label.err")"
	expect_eq "$label: temp files per CPU" "$temps" "$(grep -cE '\.cpu[0-9]+\.' "st.$label")"
	report "$d/t.dat" >"r.$label" || fail "$label: report: $(cat "$d/t.dat.rerr")"
	cpus=$(events <"r.$label" | grep -oE '\[[0-9]{3}\]' | sort -u | wc -l)
	expect_eq "$label: CPUs with events (threads pinned)" 2 "$cpus"
	got=$(count_funcs <"r.$label")
	expect_eq "$label: calls per function" "$(want)" "$got"
	[ "$(want)" = "$got" ] || say "$label: record said: $(cat "$label.err")"
	trace-cmd report "$d/t.dat" 2>/dev/null | grep -c 'function:' >"tc.$label"
	expect_eq "$label: trace-cmd reads every event" "$((16 * N + 6))" "$(cat "tc.$label")"
	# not sparse: as many blocks as bytes, give or take the last block
	[ $(($(stat -c '%b * %B' "$d/t.dat"))) -ge $(($(stat -c %s "$d/t.dat") - 65536)) ] ||
		fail "$label: the file has holes ($(stat -c '%s bytes, %b blocks' "$d/t.dat"))"
	rm -f "$d/t.dat"
}

case $(stat -f -c %T .) in
ext2/ext3|xfs|f2fs) one_dir . disk 0 ;;
*) say "the test directory's file system cannot collapse holes: disk part skipped" ;;
esac
SHM=$(mktemp -d /dev/shm/utrace-test-regions.XXXXXX)
one_dir "$SHM" tmpfs 1
rm -rf "$SHM"
finish
