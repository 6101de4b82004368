#!/bin/bash
# USDT probes listed (issue 13): `utrace list -e` prints every probe of a
# program and of the libraries it loads, from their .note.stapsdt notes:
# provider:name, [lib] for a shared object, the note's argument
# descriptions, the semaphore, and why a probe whose arguments cannot be
# decoded cannot be enabled.  Debian's python3.11 and libstdc++ carry probes.
. "$(dirname "$0")/../lib/common.sh"

"$UTRACE" list -e "$(prog usdt gcc-pfe)" >gcc.txt 2>gcc.err || fail "list -e exited $?"
[ -s gcc.err ] && fail "list -e printed on stderr: $(cat gcc.err)"
expect "gcc-pfe probes" gcc.txt <<'EOF'
utest:pair  -4@%edi -8@%rdx
utest:widths  -1@%dl 2@%cx 8@%rax
utest:konst  -4@$42
utest:memory  -8@-8(%rsp) -4@counter(%rip)
utest:string  8@(%rax,%rdi,8)
utest:noargs
utest:guarded  -4@%edi -4@%eax  (semaphore)
sched:sched_process_fork
sched:sched_process_exec
sched:sched_process_exit
sched:sched_process_free
sched:sched_process_wait
signal:signal_generate
signal:signal_deliver
utrace:thread_start
utrace:thread_exit
utrace:dlopen
utrace:dlclose
EOF
# the process events every program has: after the probes, left out below
own() { grep -vE '^(sched|signal|utrace):'; }

# Another compiler puts the arguments elsewhere; the probes are the same.
"$UTRACE" list -e "$(prog usdt clang-pfe)" |
	own | awk '{print $1, ($NF == "(semaphore)" ? $NF : "")}' | sed 's/ $//' >clang.txt
expect "clang-pfe probes" clang.txt <<'EOF'
utest:pair
utest:widths
utest:konst
utest:memory
utest:string
utest:noargs
utest:guarded (semaphore)
EOF

# A library's probes carry its name, as list -f names a library's functions.
"$UTRACE" list -e "$(prog cxx_runtime gcc-pfe)" | own | sed -E 's/\] .*/]/' >cxx.txt
expect "libstdc++ probes" cxx.txt <<'EOF'
libstdcxx:catch [libstdc++]
libstdcxx:throw [libstdc++]
libstdcxx:rethrow [libstdc++]
EOF

# Notes written by hand: an argument no tracer can fetch leaves its probe
# listed with the reason; a note cut short is skipped; the others list.
cat >notes.c <<'CEOF'
#define NOTE(pc, name, args) \
	".balign 4\n.4byte 8, 1f-0f, 3\n.asciz \"stapsdt\"\n.balign 4\n" \
	"0: .8byte " pc ", 0, 0\n.asciz \"hand\"\n.asciz \"" name "\"\n" \
	".asciz \"" args "\"\n1: .balign 4\n"
__asm__(".pushsection .note.stapsdt,\"\",\"note\"\n"
	NOTE("0x1000", "fine", "-4@%esi 8@$7")
	NOTE("0x1001", "vector", "8@%xmm0")
	NOTE("0x1002", "nosym", "4@missing(%rip)")
	".balign 4\n.4byte 8, 1f-0f, 3\n.asciz \"stapsdt\"\n.balign 4\n0: .8byte 0x1003\n1:\n"
	".popsection\n");
int main(void) { return 0; }
CEOF
gcc -o notes notes.c || fail "cannot build the hand-written notes"
"$UTRACE" list -e ./notes >notes.all 2>notes.err || fail "list -e of hand-written notes exited $?"
own <notes.all >notes.txt
expect "hand-written notes" notes.txt <<'EOF'
hand:fine  -4@%esi 8@$7
hand:vector  8@%xmm0  -- cannot be enabled: arg1 '8@%xmm0': unknown register
hand:nosym  4@missing(%rip)  -- cannot be enabled: arg1: symbol missing not found
EOF

# A program without probes lists only the process events; a file that is no program is an error.
"$UTRACE" list -e "$(prog single gcc-pfe)" >none.all || fail "list -e of a program without probes exited $?"
own <none.all >none.txt
[ -s none.txt ] && fail "probes listed for a program without any: $(cat none.txt)"
echo text >not-elf
"$UTRACE" list -e ./not-elf >bad.txt 2>bad.err && fail "list -e of a text file succeeded"
expect "not an ELF file" bad.err <<'EOF'
utrace: ./not-elf: not an ELF file
EOF

if [ -x /usr/bin/python3.11 ]; then
	"$UTRACE" list -e /usr/bin/python3.11 | grep '^python:function__' >py.txt
	expect "python3.11 probes" py.txt <<'EOF'
python:function__entry  8@%rbp 8@%r12 -4@%eax  (semaphore)  fields: filename:string funcname:string lineno
python:function__return  8@%rbp 8@%r12 -4@%eax  (semaphore)  fields: filename:string funcname:string lineno
EOF
fi
finish
