#!/bin/bash
# USDT probes of Debian's own binaries (issue 13): libstdc++'s throw /
# rethrow / catch in a C++ program and its thread, and python3.11's gc
# probes (behind semaphores: Python only calls them while some tracer
# raised them) in an interpreter that has no sites of its own.
. "$(dirname "$0")/../lib/common.sh"

# counts FILE: "name count" per event of a report.
counts() {
	report "$1" | events | sed -E 's/^.*[0-9]\.[0-9]{6}: ([a-z_]+): .*$/\1/' | sort | uniq -c |
		awk '{print $2, $1}'
}

# tests/progs/cxx_runtime.cpp: catcher() throws and catches, in main and in
# a thread; rethrower() throws, catches, rethrows with `throw;`, catches.
p=$(prog cxx_runtime gcc-pfe)
record cxx.dat -e 'libstdcxx:*' -- "$p" || fail "record of libstdc++'s probes exited $?: $(cat cxx.dat.err)"
[ -s cxx.dat.err ] && fail "record printed on stderr: $(cat cxx.dat.err)"
counts cxx.dat >cxx.txt
expect "libstdc++ probes, counted" cxx.txt <<'EOF'
catch 4
rethrow 1
throw 3
EOF
report cxx.dat | events | sed -E 's/^ *[^ ]+-([0-9]+) .*: (throw|catch|rethrow): .*/\1/' | sort -u | wc -l >tids
expect "events of both threads" tids <<'EOF'
2
EOF

py=/usr/bin/python3.11
[ -x "$py" ] || {
	finish
	exit
}
# gc.collect(generation) N times with the collector off: gc__start fires
# once per call (and a few times at start-up and exit): N more calls, N
# more events, with the generation as arg1 (named "generation" by share/usdt/python.usdt).
cat >g.py <<'EOF'
import gc, sys
gc.disable()
for i in range(int(sys.argv[1])):
    gc.collect(i % 3)
EOF
for n in 9 39; do
	record "g$n.dat" -e python:gc__start -- "$py" -S g.py "$n" ||
		fail "record of python's gc__start exited $?: $(cat "g$n.dat.err")"
	report "g$n.dat" | events | grep -oE 'gc__start: generation=[0-9]+' | sort | uniq -c |
		awk '{print $3, $1}' >"g$n.txt"
done
join g9.txt g39.txt | awk '{print $1, $3 - $2}' >diff.txt
expect "python gc__start: 30 more calls, 10 of each generation" diff.txt <<'EOF'
generation=0 10
generation=1 10
generation=2 10
EOF
finish
