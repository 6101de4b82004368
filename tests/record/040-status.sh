#!/bin/bash
# The program's exit status, stdout, stderr and stdin are its own: identical
# with and without utrace.  Killed by a signal: record dies of the same
# signal, and the trace up to then is written.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 P a st1 st2 sig
	P=$(prog status "$s")
	for a in 0 1 5 255; do
		"$P" "$a" >plain.out 2>plain.err
		st1=$?
		"$UTRACE" record -o s.dat -- "$P" "$a" >rec.out 2>rec.err
		st2=$?
		expect_eq "$s status $a: exit status" "$st1" "$st2"
		cmp -s plain.out rec.out || fail "$s status $a: stdout differs: $(diff plain.out rec.out)"
		cmp -s plain.err rec.err || fail "$s status $a: stderr differs: $(diff plain.err rec.err)"
	done
	report s.dat | funcs >f.txt
	expect "$s status: trace" f.txt <<'EOF'
main <-[libc]
st_say <-main
EOF
	# stdin reaches the program
	printf 'one\ntwo\n' | "$UTRACE" record -o s.dat -- "$P" cat >rec.out 2>rec.err
	expect "$s stdin" rec.out <<'EOF'
stdout: cat
in: one
in: two
EOF
	# killed by a signal
	for sig in 2 9 10 15; do
		# (in a subshell: no "Killed" job message from bash)
		("$UTRACE" record -o k.dat -- "$P" kill "$sig" >rec.out 2>rec.err; echo $? >st) 2>/dev/null
		st2=$(cat st)
		expect_eq "$s killed by signal $sig: record's status" $((128 + sig)) "$st2"
		expect "$s killed by signal $sig: stdout" rec.out <<EOF
stdout: kill
EOF
		report k.dat | funcs >f.txt
		expect "$s killed by signal $sig: trace" f.txt <<'EOF'
main <-[libc]
st_say <-main
EOF
		no_crash rec.err k.dat.rerr
	done
}

for_styles one
finish
