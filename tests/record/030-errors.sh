#!/bin/bash
# Usage errors exit 2 with one line naming the culprit, and run nothing:
# unknown tracer/option/clock/command, a filter matching nothing, a missing
# or non-executable program, an unwritable output.  (A script is no error:
# record runs it as the shell would, record/320-follow-scripts.sh.)  An uninstrumented
# program: a warning, but it runs and its status passes through.
. "$(dirname "$0")/../lib/common.sh"

S=${STYLES%% *}
P=$(prog status "$S")

# usage_error LABEL WORD COMMAND...: exit 2, nothing on stdout, one line on
# stderr containing WORD, the program not run (it would print), no trace.
usage_error() {
	local label=$1 word=$2 st
	shift 2
	rm -f err.dat
	"$@" >u.out 2>u.err </dev/null
	st=$?
	expect_eq "$label: exit status" 2 "$st"
	[ -s u.out ] && fail "$label: stdout not empty (program ran?): $(cat u.out)"
	# getopt's own complaint may come first for an unknown flag
	[ "${ONE_LINE:-1}" = 1 ] && expect_eq "$label: stderr lines" 1 "$(wc -l <u.err)"
	grep -qF -- "$word" u.err || fail "$label: '$word' not in the message: $(cat u.err)"
	grep -q 'stderr: ' u.err && fail "$label: the program ran"
	[ -e err.dat ] && fail "$label: err.dat was created"
	no_crash u.err
}

usage_error "unknown tracer" bogustracer "$UTRACE" record -o err.dat -p bogustracer -- "$P"
usage_error "unknown option" bogusopt "$UTRACE" record -o err.dat -O bogusopt -- "$P"
usage_error "unknown option (report)" bogusopt "$UTRACE" report -i err.dat -O bogusopt
usage_error "unknown clock" bogusclock "$UTRACE" record -o err.dat -C bogusclock -- "$P"
usage_error "unknown command" boguscmd "$UTRACE" boguscmd
ONE_LINE=0 usage_error "unknown record flag" "bogus-flag" "$UTRACE" record -o err.dat --bogus-flag -- "$P"
usage_error "bad buffer size" 0x12 "$UTRACE" record -o err.dat -b 0x12 -- "$P"
usage_error "no program" "program" "$UTRACE" record -o err.dat
usage_error "filter matches nothing" nomatch_zz "$UTRACE" record -o err.dat -l nomatch_zz -- "$P"
usage_error "filter glob matches nothing" 'zz_nomatch*' "$UTRACE" record -o err.dat -l 'zz_nomatch*' -- "$P"
usage_error "filter !pat matches nothing" '!zz_none' "$UTRACE" record -o err.dat -l '!zz_none' -- "$P"
usage_error "notrace matches nothing" '*zz_none' "$UTRACE" record -o err.dat -n '*zz_none' -- "$P"
usage_error "one bad filter among good ones" zz_bad "$UTRACE" record -o err.dat -l st_say -l zz_bad -- "$P"
usage_error "missing program" ./no-such-program "$UTRACE" record -o err.dat -- ./no-such-program
usage_error "missing program in PATH" no-such-program-zz "$UTRACE" record -o err.dat -- no-such-program-zz
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
	usage_error "unwritable output" ro/x.dat "$UTRACE" record -o ro/x.dat -- "$P"
fi
usage_error "output is a directory" ro "$UTRACE" record -o ro -- "$P"
usage_error "output in /proc" /proc/utrace-x.dat "$UTRACE" record -o /proc/utrace-x.dat -- "$P"
usage_error "output in a missing directory" no/such/dir/x.dat "$UTRACE" record -o no/such/dir/x.dat -- "$P"
usage_error "report: missing --cpu value" "cpu" "$UTRACE" report -i err.dat --cpu x

# A file that is not executable: the message must say why.
cp "$P" noexec && chmod 644 noexec
known_bug "record: a non-executable program is reported as 'No such file or directory' (cli/cmd/record.c prints strerror(ENOENT) whatever find_program returned)"
usage_error "non-executable program" noexec "$UTRACE" record -o err.dat -- ./noexec
grep -q 'Permission denied' u.err || fail "non-executable program: message is '$(cat u.err)', want 'Permission denied'"
end_known_bug

# A plain program (no site): traced through patched prologues by default,
# said in one note; its status passes.  With -O nopatch-prologue: one
# warning, the program runs, nothing recorded.
"$UTRACE" record -o plain.dat -- "$UT_PROGS/plain" >p.out 2>p.err
expect_eq "plain: exit status passes through" 3 "$?"
expect "plain: stdout" p.out <<'EOF'
plain
EOF
sed "s|$UT_PROGS/plain|PLAIN|" p.err >p.txt
expect "plain: the note" p.txt <<'EOF'
utrace: note: PLAIN has no compiler sites: its functions and its libraries' are traced through patched prologues (-O patch-prologue; -O nopatch-prologue: not)
EOF
report plain.dat | funcs >p.txt
expect "plain: main through its patched prologue" p.txt <<'EOF'
main <-[libc]
EOF
"$UTRACE" record -O nopatch-prologue -o plain.dat -- "$UT_PROGS/plain" >p.out 2>p.err
expect_eq "plain, -O nopatch-prologue: exit status passes through" 3 "$?"
grep -q 'warning' p.err || fail "plain: no warning: $(cat p.err)"
grep -q 'plain' p.err || fail "plain: the warning does not name the program: $(cat p.err)"
expect_eq "plain: stderr lines" 1 "$(wc -l <p.err)"
report plain.dat | events >p.txt
[ -s p.txt ] && fail "plain: events recorded: $(head -n 3 p.txt)"

# A program linked statically: libutrace.so cannot be loaded into it; said
# in one warning (no note, no second warning after the run), and it runs.
if command -v gcc >/dev/null && gcc -O2 -static -o static "$UT_TESTS/progs/plain/plain.c" 2>/dev/null; then
	"$UTRACE" record -o st.dat -- ./static >s.out 2>s.err
	expect_eq "static: exit status passes through" 3 "$?"
	expect "static: the warning" s.err <<'EOF'
utrace: warning: ./static is linked statically: libutrace.so cannot be loaded into it, so nothing it runs itself is traced (link it dynamically)
EOF
fi

# report of a missing file: one line, non-zero.
"$UTRACE" report -i no-such.dat >m.out 2>m.err
st=$?
[ "$st" != 0 ] || fail "report of a missing file exited 0"
grep -q 'no-such.dat' m.err || fail "report of a missing file: message: $(cat m.err)"
no_crash m.err p.err
finish
