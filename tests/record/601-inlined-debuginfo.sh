#!/bin/bash
# Where utrace learns what was inlined, and what it says when it cannot
# (issue 16): separate debug info found by build-id (objcopy
# --only-keep-debug, under UTRACE_DEBUG_DIR as under /usr/lib/debug) or by
# .gnu_debuglink; a debug file of another build is never used, and said; a
# binary without debug info says the function may have been inlined and how
# to find out; -O inlined reads the separate debug info in the traced
# process too; damaged DWARF makes it "unknown whether inlined" without a
# crash; a gcc clone (name.constprop.0) is named.
. "$(dirname "$0")/../lib/common.sh"

command -v gcc >/dev/null || skip "no gcc"
command -v objcopy >/dev/null || skip "no objcopy"

cat >t.c <<'EOF'
#include <stdio.h>
volatile int sink;
static inline __attribute__((always_inline)) int scale(int x) { sink += x; return x * 3; }
__attribute__((noinline)) int use_a(int x) { return scale(x) + 1; }
__attribute__((noinline)) int use_b(int x) { return scale(x + 1) - 1; }
int main(void) { printf("%d\n", use_a(1) + use_b(2)); return 0; }
EOF
gcc -O2 -g -fpatchable-function-entry=5 -Wl,--build-id t.c -o full || fail "gcc failed"
mkdir -p dbg/.build-id
id=$(readelf -n full | sed -n 's/.*Build ID: //p')
[ -n "$id" ] || fail "no build-id"
mkdir -p "dbg/.build-id/${id:0:2}"
objcopy --only-keep-debug full "dbg/.build-id/${id:0:2}/${id:2}.debug"
objcopy --strip-debug full stripped

export UTRACE_DEBUG_DIR=$PWD/dbg
"$UTRACE" list -f stripped --inlined 2>by-id.err | sed -E 's/0x[0-9a-f]+/<ADDR>/; s/ \([0-9]+ ranges\)//' >by-id.txt
expect "by build-id" by-id.txt <<'EOF'
scale in use_a at t.c:4 entry <ADDR>  traceable: with -O inlined
scale in use_b at t.c:5 entry <ADDR>  traceable: with -O inlined
EOF
expect "by build-id: nothing said" by-id.err </dev/null
# the traced process finds it too: -O inlined traces the instances of a
# binary stripped of its debug info
record strip.dat -O inlined -p function -l scale -- ./stripped || fail "-O inlined stripped: $(cat strip.dat.err)"
report strip.dat | funcs | sort >strip.txt
expect "-O inlined from separate debug info" strip.txt <<'EOF'
scale <-use_a
scale <-use_b
EOF

# no debug info anywhere: the word's reason says how to find out
export UTRACE_DEBUG_DIR=$PWD/none
record nodbg.dat -p function -l scale -- ./stripped
expect_eq "no debug info: exit" 2 "$?"
expect "no debug info: may have been inlined" nodbg.dat.err <<'EOF'
utrace: set_ftrace_filter: 'scale' matches no traceable function of ./stripped
  ./stripped has no debug info: scale may have been inlined into its callers; build it with -g (or install its -dbgsym package), then `utrace list --inlined -f ./stripped` tells
EOF

# .gnu_debuglink, next to the binary
objcopy --only-keep-debug full t.debug
objcopy --strip-debug --add-gnu-debuglink=t.debug full linked
"$UTRACE" list -f linked --inlined | grep -c '^scale in' >link.txt
expect "by .gnu_debuglink" link.txt <<<"2"

# another build's debug info at the build-id's place: never used, said
sed 's/x \* 3/x * 5/' t.c >u.c
gcc -O2 -g -fpatchable-function-entry=5 -Wl,--build-id u.c -o other || fail "gcc failed"
mkdir -p "foreign/.build-id/${id:0:2}"
objcopy --only-keep-debug other "foreign/.build-id/${id:0:2}/${id:2}.debug"
export UTRACE_DEBUG_DIR=$PWD/foreign
"$UTRACE" list -f stripped --inlined >foreign.txt 2>foreign.err
expect "foreign: nothing listed" foreign.txt </dev/null
sed -E "s|$PWD|DIR|; s|build-id/[0-9a-f]{2}/[0-9a-f]+\.debug|build-id/XX/YY.debug|; s/build-id [0-9a-f]+, not [0-9a-f]+/build-id X, not Y/" foreign.err >foreign.msg
expect "foreign: refused and said" foreign.msg <<'EOF'
utrace: warning: stripped: DIR/foreign/.build-id/XX/YY.debug belongs to another build (build-id X, not Y): not used
utrace: warning: stripped has no debug info: what was inlined is unknown (build with -g, or install its -dbgsym package)
EOF

# damaged DWARF: .debug_info cut short; no crash, "unknown whether inlined"
unset UTRACE_DEBUG_DIR
objcopy --dump-section .debug_info=info.bin full
head -c 40 info.bin >cut.bin
objcopy --update-section .debug_info=cut.bin full damaged
record damaged.dat -p function -l scale -- ./damaged
expect_eq "damaged: exit" 2 "$?"
check "damaged: unknown whether inlined" grep -q "unknown whether scale was inlined: ./damaged has damaged debug info" damaged.dat.err
no_crash damaged.dat.err

# a clone carries the code: name it
cat >c.c <<'EOF'
#include <stdio.h>
volatile int sink;
static __attribute__((noinline)) int work(int x, int k) { for (int i = 0; i < k; i++) sink += x * i; return sink; }
int main(int c, char **v) { (void)v; printf("%d\n", work(c, 100) + work(c + 1, 100)); return 0; }
EOF
gcc -O2 -g -fpatchable-function-entry=5 c.c -o clone || fail "gcc failed"
if nm clone | has 'work\.constprop'; then
	record clone.dat -p function -l work -- ./clone
	expect_eq "clone: exit" 2 "$?"
	check "clone: named" grep -q "the compiler made clones of work, which carry its code: work.constprop.0 (filter on them: 'work.\*')" clone.dat.err
fi
finish
