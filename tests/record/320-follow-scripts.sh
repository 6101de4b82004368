#!/bin/bash
# record runs any command as the shell would: a #! script (also found in
# PATH, also through `#!/usr/bin/env sh`), an executable text file without
# #! (run by /bin/sh), `sh -c`.  The interpreters have no sites: they run
# untraced and quietly, and every traced-able program they start is traced.
# Filter words name functions of those programs: each process takes the
# words matching its own functions, the others select nothing there; a word
# that matched in no program is a warning after the run, and so is a run
# where nothing had sites.  record waits for
# what a script leaves running in the background.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=s.dat single follow
	single=$(prog single "$s")
	follow=$(prog follow "$s")
	printf '#!/bin/sh\n%s\n%s system\nexit 3\n' "$single" "$follow" >run.sh
	printf '#!/usr/bin/env sh\n%s\n' "$single" >envrun.sh
	printf '%s\n' "$single" >noshebang
	chmod +x run.sh envrun.sh noshebang

	record "$d" -- ./run.sh
	expect_eq "$s script: exit status" 3 "$?"
	expect "$s script: stdout" "$d.out" <<'EOF'
single 13
single 13
system: 0
EOF
	expect "$s script: no messages" "$d.err" </dev/null
	report "$d" | count_funcs >n.txt
	expect "$s script: functions" n.txt <<'EOF'
find_single 1
fl_after 1
fl_before 1
main 3
run 1
s_leaf 14
s_middle 6
s_top 2
EOF

	# Filters: words of different programs, none of the script's.
	record "$d" -l s_top -l 'fl_*' -- ./run.sh
	expect_eq "$s script -l: exit status" 3 "$?"
	expect "$s script -l: no messages" "$d.err" </dev/null
	report "$d" | count_funcs >n.txt
	expect "$s script -l: functions" n.txt <<'EOF'
fl_after 1
fl_before 1
s_top 2
EOF

	# A word no program that ran has: said after the run (not before:
	# which programs a script runs is known only as they start).
	record "$d" -l s_top -l 'zz_typo*' -- ./run.sh
	expect_eq "$s script -l typo: exit status" 3 "$?"
	expect "$s script -l typo: the warning" "$d.err" <<'EOF'
utrace: warning: set_ftrace_filter: 'zz_typo*' matched no traceable function of the programs that ran
EOF
	report "$d" | count_funcs >n.txt
	expect "$s script -l typo: functions" n.txt <<<"s_top 2"

	# Found in PATH, as the shell finds it.
	PATH=$PWD:$PATH record "$d" -- run.sh
	expect_eq "$s script in PATH: exit status" 3 "$?"
	report "$d" | count_funcs | awk '$1 == "s_top"' >n.txt
	expect "$s script in PATH: s_top" n.txt <<<"s_top 2"

	for f in envrun.sh noshebang; do
		record "$d" -- "./$f" || fail "$s $f: record exited $?: $(cat "$d.err")"
		expect "$s $f: stdout" "$d.out" <<<"single 13"
		expect "$s $f: no messages" "$d.err" </dev/null
		report "$d" | count_funcs >n.txt
		expect "$s $f: functions" n.txt <<'EOF'
main 1
s_leaf 7
s_middle 3
s_top 1
EOF
	done

	# A script leaving a program running in the background: record waits
	# for it (and for the sleep it runs first).
	printf '#!/bin/sh\n(sleep 0.2; %s) &\necho script done\n' "$single" >bg.sh
	chmod +x bg.sh
	record "$d" -- ./bg.sh || fail "$s bg: record exited $?: $(cat "$d.err")"
	expect "$s bg: stdout" "$d.out" <<'EOF'
script done
single 13
EOF
	report "$d" | count_funcs >n.txt
	expect "$s bg: functions" n.txt <<'EOF'
main 1
s_leaf 7
s_middle 3
s_top 1
EOF

	# sh -c: sh has no sites, but what it runs is traced, filters included
	# (nothing to warn about).
	record "$d" -l s_middle -- sh -c "$single; $single"
	expect_eq "$s sh -c: exit status" 0 "$?"
	expect "$s sh -c: no messages" "$d.err" </dev/null
	report "$d" | count_funcs >n.txt
	expect "$s sh -c: functions" n.txt <<<"s_middle 6"

	# Nothing that ran has sites: one warning, after the run.
	printf '#!/bin/sh\n%s\n' "$UT_PROGS/plain" >plain.sh
	chmod +x plain.sh
	record "$d" -l s_top -- ./plain.sh
	expect_eq "$s plain.sh: exit status" 3 "$?"
	expect "$s plain.sh: the warning" "$d.err" <<'EOF'
utrace: warning: ./plain.sh has no patchable functions, nor has any program it ran: build them with -fpatchable-function-entry=5 or -pg -mfentry, or try -O patch-prologue
EOF
	no_crash "$d.err" "$d.rerr"
}

for_styles one
finish
