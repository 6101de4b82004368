#!/bin/bash
# -O inlined in the mount (issue 16, part 4): options/inlined (utrace's
# own, off by default, listed in trace_options) is record's -O inlined.  A
# running process takes it live: its available_filter_functions then lists
# the functions whose instances it made sites (once each), set_ftrace_filter
# selects them, and the trace shows the inlined calls of its threads with
# the function holding them as parent; error_log gets no note about the
# copies a filter misses while the option traces them (the note without
# the option: mount/600).  A new
# process makes its instances sites from the start: each inlined call of
# tests/progs/inl_cases.c is in the trace as a call (counts as the source).
. "$(dirname "$0")/mount.lib"
export LC_ALL=C

do_mount
P=$(prog inl_cases gcc-pfe)
E=$(prog inl_edge gcc-pfe)
cd "$MNT" || exit 1
expect_eq "option file" 0 "$(cat options/inlined)"
check "trace_options lists it" grep -qx noinlined trace_options

# a running process: inl_cases waiting (its functions and their copies listed)
mkfifo "$TOP/w.in" "$TOP/e.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" wait <"$TOP/w.in" >"$TOP/w.out" 2>"$TOP/w.err" &
wpid=$!
exec 8>"$TOP/w.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$E" spin 2 <"$TOP/e.in" >"$TOP/e.out" 2>"$TOP/e.err" &
epid=$!
exec 7>"$TOP/e.in"
for ((i = 0; i < 200; i++)); do
	grep -q '^inl_cases' "$TOP/w.out" && grep -q spinning "$TOP/e.out" &&
		grep -qx ip_local_out "processes/$wpid/available_filter_functions" 2>/dev/null && break
	sleep 0.05
done
echo ip_local_out >set_ftrace_filter || fail "filter ip_local_out"
check "no edge_spin without the option" bash -c "! grep -q '^edge_spin' processes/$epid/available_filter_functions"
echo 1 >options/inlined || fail "options/inlined: write"
check "trace_options says so" grep -qx inlined trace_options
for ((i = 0; i < 200; i++)); do # the processes made their instances sites
	grep -qx "edge_spin \[inlined\]" "processes/$epid/available_filter_functions" && break
	sleep 0.05
done
grep -c "^inl_step \[inlined\]$" "processes/$wpid/available_filter_functions" >"$TOP/steps.txt"
expect "an inlined function listed once" "$TOP/steps.txt" <<<1
lines=$(wc -l <error_log)
echo ip_local_out >set_ftrace_filter || fail "filter ip_local_out (inlined)"
expect_eq "no note with the option" "$lines" "$(wc -l <error_log)"
echo >trace
echo edge_spin >set_ftrace_filter || fail "filter edge_spin: $(tail -3 error_log)"
echo function >current_tracer
for ((i = 0; i < 50; i++)); do
	funcs <trace | grep -v '^CPU:' | sort -u >"$TOP/live.txt"
	[ -s "$TOP/live.txt" ] && break
	sleep 0.1
done
expect "a running process's inlined calls" "$TOP/live.txt" <<'X'
edge_spin <-spin_body
X
echo nop >current_tracer
echo go >&7
echo bye >&8
wait "$epid"
expect_eq "spinning program's exit" 0 $?
wait "$wpid"
exec 7>&- 8>&-

# a new process, with the option from the start
echo 'ip_local_out inl_scale inl_step' >set_ftrace_filter || fail "filter"
echo >trace
echo function >current_tracer
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >"$TOP/prog.out" 2>"$TOP/prog.err" ||
	fail "program: $(cat "$TOP/prog.err")"
funcs <trace | LC_ALL=C sort | uniq -c | awk '{$1 = $1; print}' >"$TOP/t.txt"
expect "inlined calls" "$TOP/t.txt" <<'X'
1 inl_scale <-inl_a
1 inl_scale <-inl_b
3 inl_step <-inl_thrice
10 ip_local_out <-ip_send_skb
5 ip_local_out <-main
X
echo noinlined >trace_options
expect_eq "off again" 0 "$(cat options/inlined)"
echo >trace
echo ip_local_out >set_ftrace_filter
LD_PRELOAD=$UT_BUILD/libutrace.so "$P" >"$TOP/prog.out" 2>"$TOP/prog.err"
funcs <trace | sort | uniq -c | awk '{$1 = $1; print}' >"$TOP/t.txt"
expect "only the copy" "$TOP/t.txt" <<'X'
5 ip_local_out <-main
X
cd "$TOP" || exit 1
finish
