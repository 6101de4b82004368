#!/bin/bash
# record's run-wide clock when the program starts before it is measured: a
# lossless record (the default) starts its program with a first conversion
# and finishes the 10 ms one before it opens the first session; a record
# that may drop (-O drop) measures it first.  Either way every process is
# converted alike and the timestamps are CLOCK_MONOTONIC's: each event lies
# between the clock read before and after the record, and the fork's causal
# order holds across the two processes.
. "$(dirname "$0")/../lib/common.sh"

mono_s() { python3 -c 'import time; print("%.6f" % time.monotonic())'; }

# 1 if the kernel publishes its TSC conversion (perf mmap page: cap_user_time
# and cap_user_time_zero): processes then use the kernel's sched_clock, not
# record's CLOCK_MONOTONIC calibration, and only the order is checked.
perf_time() {
	python3 - <<'PY'
import ctypes, mmap, struct
libc = ctypes.CDLL(None, use_errno=True)
attr = bytearray(128)
struct.pack_into("IIQ", attr, 0, 1, 128, 9)          # PERF_TYPE_SOFTWARE, size, SW_DUMMY
struct.pack_into("Q", attr, 40, (1 << 5) | (1 << 6))  # exclude_kernel, exclude_hv
fd = libc.syscall(298, (ctypes.c_char * 128).from_buffer(attr), 0, -1, -1, 8)
caps = 0
if fd >= 0:
    caps = struct.unpack_from("Q", mmap.mmap(fd, mmap.PAGESIZE, mmap.MAP_SHARED, mmap.PROT_READ), 40)[0]
print(1 if caps & (1 << 3) and caps & (1 << 4) else 0)
PY
}
KERNEL_CONV=$(perf_time)

one() {
	local s=$1 mode=$2 before after out
	shift 2
	before=$(mono_s)
	record o.dat "$@" -- "$(prog fork "$s")" || fail "$s $mode: record exited $?: $(cat o.dat.err)"
	after=$(mono_s)
	report o.dat >r.txt || fail "$s $mode: report exited $?"
	events <r.txt | funcs | awk '{print $1}' >o.txt
	expect "$s $mode: causal order" o.txt <<'EOF'
main
f_parent_before
f_child
f_child
f_child
f_parent_after
EOF
	events <r.txt | sed -nE 's/.* ([0-9]+\.[0-9]{6}): .*/\1/p' >ts.txt
	expect_eq "$s $mode: timestamps" 6 "$(wc -l <ts.txt)"
	[ "$KERNEL_CONV" = 0 ] || return 0
	out=$(awk -v lo="$before" -v hi="$after" '$1 < lo || $1 > hi { print }' ts.txt)
	check "$s $mode: timestamps within the run ($before .. $after s, CLOCK_MONOTONIC)" \
		test -z "$out"
	[ -z "$out" ] || say "outside: $out"
}

for s in $STYLES; do
	one "$s" lossless
	one "$s" drop -O drop
done
finish
