#!/bin/bash
# -O inlined in the mount (issue 16, part 4): options/inlined (utrace's
# own, off by default, listed in trace_options) is record's -O inlined: a
# new process makes its inlined instances sites, set_ftrace_filter selects
# them by the function inlined, and the trace shows each inlined call of
# tests/progs/inl_cases.c as a call, its parent the function it sits in;
# the note in error_log about the copies a filter misses goes away while
# the option traces them.  A process already running takes the option too.
. "$(dirname "$0")/mount.lib"
export LC_ALL=C

do_mount
P=$(prog inl_cases gcc-pfe)
cd "$MNT" || exit 1
expect_eq "option file" 0 "$(cat options/inlined)"
check "trace_options lists it" grep -qx noinlined trace_options
echo 1 >options/inlined || fail "options/inlined: write"
check "trace_options says so" grep -qx inlined trace_options
echo 'ip_local_out inl_scale inl_step' >set_ftrace_filter || fail "filter"
check "no note while the option traces the copies" bash -c '! grep -q "also inlined" error_log'
echo function >current_tracer
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >"$TOP/prog.out" 2>"$TOP/prog.err" ||
	fail "program: $(cat "$TOP/prog.err")"
funcs <trace | sort | uniq -c | awk '{$1 = $1; print}' >"$TOP/t.txt"
expect "inlined calls" "$TOP/t.txt" <<'X'
1 inl_scale <-inl_a
1 inl_scale <-inl_b
10 ip_local_out <-ip_send_skb
3 inl_step <-inl_thrice
5 ip_local_out <-main
X
echo noinlined >trace_options
expect_eq "off again" 0 "$(cat options/inlined)"
echo >trace
echo ip_local_out >set_ftrace_filter
check "the note without it" grep -q "ip_local_out is also inlined at 1 call site, not traced (-O inlined traces it" error_log
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >"$TOP/prog.out" 2>"$TOP/prog.err"
funcs <trace | sort | uniq -c | awk '{$1 = $1; print}' >"$TOP/t.txt"
expect "only the copy" "$TOP/t.txt" <<'X'
5 ip_local_out <-main
X
# a running process: the option and the filter reach it live
E=$(prog inl_edge gcc-pfe)
mkfifo "$TOP/e.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$E" spin 2 <"$TOP/e.in" >"$TOP/e.out" 2>"$TOP/e.err" &
epid=$!
exec 7>"$TOP/e.in"
for ((i = 0; i < 200; i++)); do
	grep -q spinning "$TOP/e.out" && break
	sleep 0.05
done
echo >trace
echo 1 >options/inlined || fail "options/inlined: write (live)"
echo edge_spin >set_ftrace_filter || fail "filter edge_spin: $(tail -3 error_log)"
sleep 0.3
funcs <trace | sort -u >"$TOP/live.txt"
expect "a running process" "$TOP/live.txt" <<'X'
edge_spin <-spin_body
X
echo nop >current_tracer
echo go >&7
wait "$epid"
expect_eq "spinning program's exit" 0 $?
exec 7>&-
cd "$TOP" || exit 1
finish
