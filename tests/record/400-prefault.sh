#!/bin/bash
# Ring pages are populated off the traced thread (issue 12 item 4): with a
# buffer far larger than the events (a first lap only), the thread that
# records takes fewer minor faults than a quarter of the ring pages it
# fills (tests/progs/faults.c counts them with RUSAGE_THREAD); without the
# prefaulter (UTRACE_NO_PREFAULT=1) it faults every one itself.  Every event
# is recorded either way.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=pf.$1.dat
	record "$d" -p function -b 65536 -- "$(prog faults "$s")" 100000 2000 ||
		fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s faults with the prefaulter" "$d.out" <<'EOF2'
faults 100000 low
EOF2
	report "$d" | grep -c ' pf_leaf <-main$' >"$d.n"
	expect "$s every event" "$d.n" <<'EOF2'
100000
EOF2
	UTRACE_NO_PREFAULT=1 record "$d" -p function -b 65536 -- \
		"$(prog faults "$s")" 100000 2000 || fail "$s: record exited $?: $(cat "$d.err")"
	sed 's/high [0-9]* of/high N of/' "$d.out" >"$d.out2"
	expect "$s faults without it" "$d.out2" <<'EOF2'
faults 100000 high N of 390 pages
EOF2
	no_crash "$d.err" "$d.rerr"
}

for s in gcc-pfe clang-fentry; do
	one "$s"
done
finish
