#!/bin/bash
# A function known by several names (symbols at one address: the alias
# attribute, a weak alias, a static function exported under another name,
# an __internal name; tests/progs/aliases.c) is one function in the mount:
# set_ftrace_filter, set_ftrace_notrace and function commands take any of
# its names, and reading the list back shows the name the function is
# listed by (as the kernel shows what it selected); available_filter_functions
# keeps one name a line; a name of a function without a site is refused
# and error_log says whose other name it is.  Both the top level and a
# process's own files.  For every style: the filters take the other
# names in the process too (what its trace holds).
. "$(dirname "$0")/mount.lib"

do_mount

start_server a "$(prog aliases gcc-pfe)" serve
cd "$MNT" || exit 1

echo al_area_impl >set_ftrace_filter || fail "al_area_impl refused"
echo al_volume >>set_ftrace_filter || fail "al_volume refused"
echo '__al_*' >>set_ftrace_filter || fail "__al_* refused"
echo al_hidden >>set_ftrace_filter || fail "al_hidden refused"
cat set_ftrace_filter >"$TOP/f1.txt"
expect "set_ftrace_filter shows the listed names" "$TOP/f1.txt" <<'EOF'
al_area
al_vol_real
al_api
al_getbuf
EOF
echo '!al_area_impl' >>set_ftrace_filter || fail "!al_area_impl refused"
echo 'al_api' >set_ftrace_notrace || fail "notrace al_api refused"
cat set_ftrace_filter set_ftrace_notrace >"$TOP/f2.txt"
expect "removed and excluded by other names" "$TOP/f2.txt" <<'EOF'
al_vol_real
al_api
al_getbuf
al_api
EOF
grep '^al_\|^__al' available_filter_functions | sort >"$TOP/a.txt"
expect "available_filter_functions: one name a function" "$TOP/a.txt" <<'EOF'
al_api
al_area
al_getbuf
al_twin_a
al_vol_real
EOF
echo function >current_tracer
run_req a 1
funcs <trace | sort | uniq -c >"$TOP/t1.txt"
expect "traced once per call" "$TOP/t1.txt" <<'EOF'
      2 al_getbuf <-calls
      2 al_vol_real <-calls
EOF

# a function command by another name
echo >trace
echo >set_ftrace_notrace
echo 'al_*' >set_ftrace_filter
echo '__al_getbuf:traceoff:1' >>set_ftrace_filter || fail "command by another name refused"
grep traceoff set_ftrace_filter >"$TOP/c.txt"
expect "the command lists the function's name" "$TOP/c.txt" <<'EOF'
al_getbuf:traceoff:count=1
EOF
run_req a 1
funcs <trace >"$TOP/t2.txt"
expect "traceoff at al_getbuf" "$TOP/t2.txt" <<'EOF'
al_area <-calls
al_area <-calls
al_area <-calls
al_vol_real <-calls
al_vol_real <-calls
al_api <-calls
EOF
echo '!__al_getbuf:traceoff:0' >>set_ftrace_filter || fail "!command by another name refused"
echo 1 >tracing_on

# a name of a function without a site: refused, error_log says whose
echo >error_log
werr eval 'echo al_quiet_impl >set_ftrace_filter' >"$TOP/w1.txt"
expect "no site: refused" "$TOP/w1.txt" <<<"EINVAL"
sed -E 's/^\[ *[0-9]+\.[0-9]+\]/[<TS>]/; s|/[^ ]*/progs/aliases\.[a-z]+-[a-z]+|PROG|g' error_log >"$TOP/e1.txt"
expect "error_log: another name of a function without a site" "$TOP/e1.txt" <<'EOF'
[<TS>] utrace: error: set_ftrace_filter: 'al_quiet_impl' matches no traceable function
  al_quiet_impl, another name of al_quiet, is in PROG but has no site (a part the compiler split off, or built with no_instrument_function)
  Command: al_quiet_impl
           ^
EOF

# a process's own files
cd "processes/$(pid_of a)" || exit 1
echo 'al_area_impl al_volume' >set_ftrace_filter || fail "process: other names refused"
cat set_ftrace_filter >"$TOP/p.txt"
expect "process: set_ftrace_filter" "$TOP/p.txt" <<'EOF'
al_area
al_vol_real
EOF
cd "$MNT" || exit 1
send a quit

# every style: the process's filter by other names (clang keeps no
# symbol for the static al_hidden: al_api alone names it)
k=0
for s in $STYLES; do
	k=$((k + 1))
	echo nop >current_tracer
	echo >set_ftrace_filter
	echo >set_ftrace_notrace
	echo >trace
	start_server "s$k" "$(prog aliases "$s")" serve
	echo 'al_area_impl al_volume __al_getbuf' >"processes/$(pid_of "s$k")/set_ftrace_filter" ||
		fail "$s: filter by other names refused"
	echo function >current_tracer
	run_req "s$k" 2
	funcs <trace | sed 's/ <-.*//' | sort | uniq -c >"$TOP/s.$s"
	expect "$s: counts" "$TOP/s.$s" <<'EOF'
      6 al_area
      4 al_getbuf
      4 al_vol_real
EOF
	send "s$k" quit
done
cd "$TOP" || exit 1
finish
