#!/bin/bash
# Another local user cannot take over one's tracing (issue 10, item 1).  The
# attacker makes the victim's run-time directory /dev/shm/utrace-<uid>
# first, world-writable, with a configuration in it: the victim's traced
# program runs untraced, as it would without utrace, and says why in one
# line; record, start, stop, show, extract and ps refuse with that message
# and exit non-zero.  A directory of the victim's own, once made, is out of
# the attacker's reach, and works.  Two throwaway users; skipped unless root.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/users.sh"

need_users
make_user A
make_user V
AU=$(id -u "$A")
VU=$(id -u "$V")
ROOT=/dev/shm/utrace-$VU
S=${STYLES%% *}
P=$(prog single "$S")
unset UTRACE_DIR
chmod 755 .
mkdir out
chown "$V" out

# The attacker's directory, and its configuration: trace everything.
rm -rf "$ROOT"
as_user "$A" bash -c "mkdir -m 0777 $ROOT && chmod 0777 $ROOT &&
	printf 'tracer function\n' >$ROOT/config && chmod 0666 $ROOT/config" ||
	fail "the attacker could not prepare $ROOT"
MSG="utrace: $ROOT: owned by uid $AU, not by you (uid $VU): refused"

as_user "$V" env LD_PRELOAD="$UT_BUILD/libutrace.so" "$P" >p.out 2>p.err
expect_eq "program status" 0 $?
expect "program output" p.out <<'EOF'
single 13
EOF
expect "program message" p.err <<EOF
$MSG; the program runs untraced
EOF
ls -A "$ROOT" >ls.txt
expect "nothing of the victim's in the attacker's directory" ls.txt <<'EOF'
config
EOF

# refused LABEL STATUS COMMAND...: one line naming the directory, that exit
# status, the program never run.
refused() {
	local label=$1 want=$2 st
	shift 2
	as_user "$V" "$@" >t.out 2>t.err </dev/null
	st=$?
	expect_eq "$label: exit status" "$want" "$st"
	sed -i 's/^utrace: cannot create a session directory: /utrace: /' t.err
	expect "$label: message" t.err <<EOF
$MSG
EOF
	grep -q single t.out && fail "$label: the program ran"
}
refused "record" 2 "$UTRACE" record -o out/r.dat -- "$P"
refused "start" 1 "$UTRACE" start -p function
refused "stop" 1 "$UTRACE" stop
refused "show" 1 "$UTRACE" show
refused "extract" 1 "$UTRACE" extract -o out/x.dat
refused "ps" 1 "$UTRACE" ps
[ -s out/r.dat ] && fail "record wrote a trace"

# The victim's own directory: the attacker can neither write nor rename in it.
rm -rf "$ROOT"
as_user "$V" "$UTRACE" record -o out/ok.dat -l s_top -- "$P" >ok.out 2>ok.err
expect_eq "record in the victim's own directory" 0 $?
as_user "$V" "$UTRACE" report -i out/ok.dat | funcs >ok.txt
expect "trace in the victim's own directory" ok.txt <<'EOF'
s_top <-main
EOF
stat -c '%U %a' "$ROOT" >mode.txt
expect "the directory record made" mode.txt <<EOF
$V 700
EOF
as_user "$A" bash -c "printf 'tracer function\n' >$ROOT/config" 2>/dev/null &&
	fail "the attacker wrote into the victim's directory"
as_user "$A" mv "$ROOT" "$ROOT.moved" 2>/dev/null &&
	fail "the attacker renamed the victim's directory"
no_crash p.err t.err ok.err
finish
