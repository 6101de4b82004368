#!/bin/bash
# `utrace start` on a running program (issue 16): a word naming a function
# inlined into every caller is refused with the reason after the error, and
# a filter selecting a function also inlined elsewhere says once what it
# does not trace.  (In tests/record: the live range belongs to others.)
. "$(dirname "$0")/../lib/common.sh"
export UTRACE_DIR=$PWD/run

p=$(prog inl_cases gcc-pfe)
mkfifo in
LD_PRELOAD=$UT_BUILD/libutrace.so "$p" wait <in >out 2>err &
pid=$!
exec 7>in
for ((i = 0; i < 200; i++)); do
	grep -q '^inl_cases ' out && break
	sleep 0.05
done
grep -q '^inl_cases ' out || fail "the program did not start"

"$UTRACE" start -p function -l inl_scale 2>s1.err
expect_eq "inl_scale: exit" 2 "$?"
sed "s|$p|PROG|g; s/process [0-9]*/process PID/" s1.err >s1.txt
expect "inl_scale: why" s1.txt <<'EOF'
utrace: set_ftrace_filter: some words match no traceable function here
utrace: set_ftrace_filter: 'inl_scale' matches no traceable function
  inl_scale was inlined into every caller: 2 instances, in inl_a (tests/progs/inl_cases.c:50), inl_b (tests/progs/inl_cases.c:55)
  to trace it: -O inlined traces the inlined copies, or mark it __attribute__((noinline)), or trace its callers; `utrace list --inlined -f PROG` lists them
EOF
"$UTRACE" start -p function -l ip_local_out 2>s2.err || fail "start ip_local_out: $(cat s2.err)"
sed "s|$p|PROG|g" s2.err >s2.txt
expect "ip_local_out: the note" s2.txt <<'EOF'
utrace: note: set_ftrace_filter: ip_local_out is also inlined at 1 call site, not traced (-O inlined traces it; `utrace list --inlined -f PROG` lists it)
EOF
echo bye >&7
exec 7>&-
wait "$pid"
"$UTRACE" reset >/dev/null 2>&1
finish
