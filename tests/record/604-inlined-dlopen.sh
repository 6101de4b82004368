#!/bin/bash
# A dlopened library with inlined functions (issue 16), built with gcc and
# with clang: `list -f --inlined` reads the library itself; `utrace start`
# on the running program, which loaded it with dlopen, explains a word
# naming a function the library inlined into every caller, from the
# library's debug info (the session's modules log names it); record
# -O inlined traces them once the program dlopens the library.
. "$(dirname "$0")/../lib/common.sh"
export UTRACE_DIR=$PWD/run

cat >inl.c <<'EOF'
volatile int sink;
static inline __attribute__((always_inline)) int lib_scale(int x) { sink += x; return x * 3; }
__attribute__((noinline)) int lib_entry(int x) { return lib_scale(x) + lib_scale(x + 1); }
EOF
cat >main.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	char line[16];
	void *h = dlopen("./libinl.so", RTLD_NOW);
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "lib_entry") : NULL;
	printf("ready %d\n", f ? f(1) : -1);
	fflush(stdout);
	return fgets(line, sizeof(line), stdin) ? 0 : 0;
}
EOF
one() {
	local cc=$1
	command -v "$cc" >/dev/null || return
	rm -rf run
	"$cc" -O2 -g -fpatchable-function-entry=5 -fPIC -shared inl.c -o libinl.so || fail "$cc lib"
	"$cc" -O2 -g -fpatchable-function-entry=5 main.c -o main -ldl || fail "$cc main"
	"$UTRACE" list -f ./libinl.so --inlined | sed -E 's/0x[0-9a-f]+/<ADDR>/; s/ \([0-9]+ ranges\)//' >"$cc.inl"
	expect "$cc: list -f --inlined of the library" "$cc.inl" <<'EOF'
lib_scale in lib_entry at inl.c:3 entry <ADDR>  traceable: with -O inlined
lib_scale in lib_entry at inl.c:3 entry <ADDR>  traceable: with -O inlined
EOF
	mkfifo in
	LD_PRELOAD=$UT_BUILD/libutrace.so ./main <in >out 2>err &
	pid=$!
	exec 7>in
	for ((i = 0; i < 200; i++)); do
		grep -q '^ready ' out && break
		sleep 0.05
	done
	grep -q '^ready 9$' out || fail "$cc: the program did not run: $(cat out err)"
	"$UTRACE" start -p function -l lib_scale 2>"$cc.err"
	expect_eq "$cc: exit" 2 "$?"
	sed "s|$PWD/||g" "$cc.err" | grep -v 'some words' >"$cc.txt"
	expect "$cc: why, from the dlopened library" "$cc.txt" <<'EOF'
utrace: set_ftrace_filter: 'lib_scale' matches no traceable function
  lib_scale was inlined into every caller: 2 instances, in lib_entry (inl.c:3) x2
  to trace it: -O inlined traces the inlined copies, or mark it __attribute__((noinline)), or trace its callers; `utrace list --inlined -f libinl.so` lists them
EOF
	echo bye >&7
	exec 7>&-
	wait "$pid"
	rm -f in
	# -O inlined: the library's instances become sites when it is dlopened
	record "$cc.dat" -O inlined -p function -l 'lib_*:mod:libinl' -- ./main </dev/null ||
		fail "$cc: record -O inlined exited $?: $(cat "$cc.dat.err")"
	report "$cc.dat" | funcs | sort | uniq -c | awk '{$1 = $1; print}' >"$cc.calls"
	expect "$cc: the dlopened library's inlined calls" "$cc.calls" <<'EOF'
1 lib_entry <-main
2 lib_scale <-lib_entry
EOF
}
one gcc
one clang
finish
