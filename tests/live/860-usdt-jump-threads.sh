#!/bin/bash
# USDT probes enabled with a jump, live, while threads run them (issue 13
# item 2): `utrace start -e` installs the jumps in a running process (int3
# on the window's first byte, threads inside the moved bytes moved to the
# slot, then the jump), another configuration puts the bytes back, and
# neither loses or corrupts a thread that is running the probes meanwhile:
# tests/progs/usdt_jump.c's threads check every result (flags, red zone,
# registers, a vector register across the probe).  Hits while enabled are
# counted exactly.  A forked child's probes are the child's alone.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/usdt-live.sh"
export UTRACE_DIR=$PWD/run

P=$(prog usdt_jump gcc-pfe)
rm -f modes
usdt_live_start "$P" UTRACE_TEST_USDT="$PWD/modes"

# text_of SYMBOL mem|file: the function's bytes in the running program or in its file, as hex
text_of() {
	local addr size base fo vaddr
	read -r addr size <<<"$(nm -S "$P" | awk -v s="$1" '$4 == s {print $1, $2}')"
	if [ "$2" = mem ]; then
		base=$(awk -v p="$P" '$6 == p {split($1, a, "-"); print a[1]; exit}' "/proc/$pid/maps")
		dd if="/proc/$pid/mem" bs=1 skip=$((0x$base + 0x$addr)) count=$((0x$size)) 2>/dev/null | od -An -tx1
	else
		read -r fo vaddr <<<"$(readelf -lW "$P" | awk '$1 == "LOAD" && $7 ~ /E/ {print $2, $3; exit}')"
		dd if="$P" bs=1 skip=$((0x$addr - vaddr + fo)) count=$((0x$size)) 2>/dev/null | od -An -tx1
	fi
}
text_of jt_forms file >forms.file
text_of jt_back file >back.file
[ -s forms.file ] || fail "jt_forms' bytes not read from the file"
text_of jt_forms mem >jt_forms.mem1
expect "not enabled: jt_forms as in the file" jt_forms.mem1 <forms.file

cmd "threads 4 2000"
expect_eq "nothing enabled" "ran 8000 bad 0" "$REPLY"

"$UTRACE" start -P "$pid" -e jump:forms -e jump:back -e jump:ret 2>start.err ||
	fail "start -e exited $?: $(cat start.err)"
expect "how each probe is enabled" modes <<'EOF'
jump:forms jump
jump:back jump
jump:ret int3: a return or jump away among the instructions a jump would cover
jump:xmm jump
EOF
text_of jt_forms mem >forms.on
cmp -s forms.on forms.file && fail "enabled: jt_forms' bytes are the file's (no jump?)"
cmd "threads 4 2000"
expect_eq "enabled: every result right" "ran 8000 bad 0" "$REPLY"
"$UTRACE" show -P "$pid" 2>show.err | events | sed -E 's/^.*: ([a-z]+): .*$/\1/' | sort | uniq -c |
	awk '{print $2, $1}' >counts.txt
# each thread runs rounds 0..1999 with i = n & 0xff: back fires for odd i
expect "events counted exactly" counts.txt <<'EOF'
back 4000
forms 8000
ret 8000
EOF

# Enabled and disabled again and again while four threads run the probes.
cmd "spin 4"
expect_eq "spinning" spinning "$REPLY"
for ((k = 0; k < 15; k++)); do
	"$UTRACE" start -P "$pid" -e 'jump:*' 2>on.err || fail "start -e (round $k) exited $?: $(cat on.err)"
	"$UTRACE" start -P "$pid" -p nop 2>off.err || fail "start -p nop (round $k) exited $?: $(cat off.err)"
done
"$UTRACE" start -P "$pid" -e jump:xmm -f 'arg1 >= 0' 2>on.err || fail "start -e -f exited $?: $(cat on.err)"
sleep 0.2
"$UTRACE" start -P "$pid" -p nop 2>off.err || fail "start -p nop exited $?: $(cat off.err)"
cmd halt
expect_eq "toggled while running: every result right" "halted bad 0" "$REPLY"
kill -0 "$pid" 2>/dev/null || fail "the program died"

# Disabled: the bytes are the program's again, nothing more is recorded.
"$UTRACE" start -P "$pid" -p nop 2>/dev/null
text_of jt_forms mem >jt_forms.mem2
expect "disabled: jt_forms as in the file" jt_forms.mem2 <forms.file
text_of jt_back mem >jt_back.mem3
expect "disabled: jt_back as in the file" jt_back.mem3 <back.file
cmd "threads 2 100"
expect_eq "disabled" "ran 200 bad 0" "$REPLY"
"$UTRACE" show -P "$pid" 2>/dev/null | events | grep -c ': forms:' >after.txt
expect "no events once disabled" after.txt <<'EOF'
0
EOF

# A forked child's probes enabled: its text changes, not its parent's
# (the runtime's /proc/self/mem is the child's own after the fork).
cmd fork
child=${REPLY#forked }
[ "$child" -gt 0 ] 2>/dev/null || fail "fork: no child ($REPLY)"
for ((i = 0; i < 300; i++)); do # its session is made as it starts
	"$UTRACE" start -P "$child" -e jump:forms 2>child.err && break
	sleep 0.01
done
[ "$i" -lt 300 ] || fail "start -P child failed: $(cat child.err)"
for ((i = 0; i < 300; i++)); do
	"$UTRACE" show -P "$child" >child.txt 2>/dev/null
	grep -q ': forms: ' child.txt && break
	sleep 0.01
done
grep -q ': forms: ' child.txt || fail "no event of the child's probe"
text_of jt_forms mem >jt_forms.mem4
expect "the child's probe enabled: the parent's jt_forms as in the file" jt_forms.mem4 <forms.file
cmd "threads 2 100"
expect_eq "the parent runs its probes as before" "ran 200 bad 0" "$REPLY"
"$UTRACE" show -P "$pid" 2>/dev/null | events | grep -c ': forms:' >parent.txt
expect "no event in the parent" parent.txt <<'EOF'
0
EOF
kill "$child"

echo quit >&7
exec 7>&-
wait "$pid"
expect_eq "exit status" 0 "$?"
[ -s err.txt ] && fail "the program printed on stderr: $(cat err.txt)"
finish
