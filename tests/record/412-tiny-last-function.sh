#!/bin/bash
# A function at the very end of .text smaller than the bytes a site test
# reads (a 6-byte `5 nops; ret`, a 9-byte one) is still a site: `-l NAME`
# finds it and the trace has its call.  It used to say "matches no
# traceable function" (the site test asked for 12 bytes).
. "$(dirname "$0")/../lib/common.sh"

command -v gcc >/dev/null || skip "no gcc"

# The last function defined is the last of .text (main goes to .text.startup).
cat >six.c <<'EOF'
void tiny(void);
int main(void) { tiny(); return 0; }
__attribute__((noinline)) void tiny(void) { __asm__ volatile(""); }
EOF
cat >nine.c <<'EOF'
#include <stdio.h>
int tiny(int x);
int main(void) { printf("%d\n", tiny(1)); return 0; }
__attribute__((noinline)) int tiny(int x) { return x + 1; }
EOF
for p in six nine; do
	gcc -O2 -fcf-protection=none -fpatchable-function-entry=5 "$p.c" -o "$p" ||
		fail "$p: gcc failed"
	record "$p.dat" -p function -l tiny -- "./$p" || fail "$p: record exited $?: $(cat "$p.dat.err")"
	report "$p.dat" | grep -v '^#' | mask >"$p.txt"
	expect "$p report" "$p.txt" <<EOF
$p-<PID> [<CPU>] ..... <TS>: tiny <-main
EOF
done
finish
