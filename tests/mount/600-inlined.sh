#!/bin/bash
# The mount and the tools see one set of sites, and the mount explains
# inlined functions (issue 16).  For each style of tests/progs/inl_cases.c
# and of the server: the running process's available_filter_functions
# equals `utrace list -f` (its inlined marks aside), the tiny function last
# in .text included.  In error_log: a word naming a function inlined into
# every caller says why; a list selecting a function also inlined elsewhere
# says, once, how many inlined call sites it does not trace.
. "$(dirname "$0")/mount.lib"

do_mount

k=0
gone=()
for s in $STYLES; do
	k=$((k + 1))
	p=$(prog inl_cases "$s")
	spawn_server "c$k" "$p" wait
	wait_for "c$k" '^inl_cases '
	pid=$(pid_of "c$k")
	"$UTRACE" list -f "$p" | sed 's/ \[+[0-9]* inlined\]//' >"$TOP/list.$s"
	cat "$MNT/processes/$pid/available_filter_functions" >"$TOP/mnt.$s"
	check "$s: list -f = available_filter_functions" diff -u "$TOP/list.$s" "$TOP/mnt.$s"
	check "$s: send_packet (last in .text) listed" grep -qx send_packet "$TOP/mnt.$s"
	srv=$(prog server "$s")
	spawn_server "s$k" "$srv"
	send "s$k" ping
	wait_for "s$k" '^pong$'
	"$UTRACE" list -f "$srv" >"$TOP/slist.$s"
	cat "$MNT/processes/$(pid_of "s$k")/available_filter_functions" >"$TOP/smnt.$s"
	check "$s: server: list -f = available_filter_functions" diff -u "$TOP/slist.$s" "$TOP/smnt.$s"
	if [ "$s" != gcc-pfe ]; then
		send "c$k" bye
		send "s$k" quit
		gone+=("$pid" "$(pid_of "s$k")")
	fi
done
# only the gcc-pfe pair is left running
for p in "${gone[@]}"; do
	while kill -0 "$p" 2>/dev/null; do sleep 0.05; done
done

cd "$MNT" || exit 1
echo >error_log
werr eval 'echo inl_scale >set_ftrace_filter' >"$TOP/w1.txt"
expect "inlined into every caller: refused" "$TOP/w1.txt" <<<"EINVAL"
sed -E 's/^\[ *[0-9]+\.[0-9]+\]/[<TS>]/; s|/[^ ]*/progs/inl_cases\.[a-z]+-[a-z]+|PROG|g' error_log >"$TOP/e1.txt"
expect "error_log says why" "$TOP/e1.txt" <<'EOF'
[<TS>] utrace: error: set_ftrace_filter: 'inl_scale' matches no traceable function
  inl_scale was inlined into every caller: 2 instances, in inl_a (tests/progs/inl_cases.c:50), inl_b (tests/progs/inl_cases.c:55)
  to trace it: -O inlined traces the inlined copies, or mark it __attribute__((noinline)), or trace its callers; `utrace list --inlined -f PROG` lists them
  Command: inl_scale
           ^
EOF
echo >error_log
echo ip_local_out >set_ftrace_filter || fail "ip_local_out refused"
sed -E 's/^\[ *[0-9]+\.[0-9]+\]/[<TS>]/; s|/[^ ]*/progs/inl_cases\.[a-z]+-[a-z]+|PROG|g' error_log >"$TOP/e2.txt"
expect "error_log notes the inlined copy" "$TOP/e2.txt" <<'EOF'
[<TS>] utrace: note: set_ftrace_filter: ip_local_out is also inlined at 1 call site, not traced (-O inlined traces it; `utrace list --inlined -f PROG` lists it)
  Command: ip_local_out
           ^
EOF
cat set_ftrace_filter >"$TOP/f.txt"
expect "the filter holds it" "$TOP/f.txt" <<<"ip_local_out"

# a process's own files: the process refuses, error_log says why
cd "processes/$(pid_of c1)" || exit 1
echo >error_log
werr eval 'echo inl_scale >set_ftrace_filter' >"$TOP/w3.txt"
expect "process: refused" "$TOP/w3.txt" <<<"EINVAL"
sed -E 's/^\[ *[0-9]+\.[0-9]+\]/[<TS>]/; s|/[^ ]*/progs/inl_cases\.[a-z]+-[a-z]+|PROG|g' error_log >"$TOP/e3.txt"
expect "process: error_log says why" "$TOP/e3.txt" <<'EOF'
[<TS>] utrace: error: set_ftrace_filter: 'inl_scale' matches no traceable function
  inl_scale was inlined into every caller: 2 instances, in inl_a (tests/progs/inl_cases.c:50), inl_b (tests/progs/inl_cases.c:55)
  to trace it: -O inlined traces the inlined copies, or mark it __attribute__((noinline)), or trace its callers; `utrace list --inlined -f PROG` lists them
  Command: inl_scale
           ^
EOF
echo >error_log
echo ip_local_out >set_ftrace_filter || fail "process: ip_local_out refused"
grep -c "utrace: note: set_ftrace_filter: ip_local_out is also inlined at 1 call site" error_log >"$TOP/e4.txt"
expect "process: the note" "$TOP/e4.txt" <<<"1"
cd "$MNT" || exit 1
alive
finish
