#!/bin/bash
# A program and a dlopen'ed library rebuilt (other functions at the same
# paths), deleted or stripped while `utrace record` traces them: the trace.dat names
# the functions that ran, from the session's copy of their symbols, and
# record says so on stderr; trace-cmd report names them from the file too.
. "$(dirname "$0")/../lib/common.sh"

command -v gcc >/dev/null || skip "no gcc"

cat >lib1.c <<'EOF'
volatile int lib_sink;
__attribute__((noinline)) int lib_leaf(int x) { lib_sink = x; return x + 7; }
int lib_entry(int x) { return lib_leaf(x) * 2; }
EOF
cat >lib2.c <<'EOF'
__attribute__((noinline)) int zzz_other(int x) { return x - 7; }
int zzz_first(int x) { return zzz_other(x) * 3; }
int lib_entry(int x) { return zzz_first(x); }
EOF
# The program calls into the library (an absolute path: see issue 10 item 5), then waits for a line on stdin
# (the test rebuilds things meanwhile), then calls again.
cat >one.c <<'EOF'
#include <dlfcn.h>
#include <stdio.h>
volatile int sink;
__attribute__((noinline)) int leaf(int x) { sink = x; return x * 2; }
__attribute__((noinline)) int mid(int x) { return leaf(x) + 1; }
int main(int argc, char **argv)
{
	void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW) : 0;
	int (*f)(int) = h ? (int (*)(int))dlsym(h, "lib_entry") : 0;
	char line[16];

	if (!f)
		return 1;
	mid(1);
	f(1);
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	mid(2);
	return f(2) > 0 ? 0 : 3;
}
EOF
cat >two.c <<'EOF'
__attribute__((noinline)) int another(int x) { return x * 3; }
int main(void) { return another(1); }
EOF
build() { gcc -O1 -fpatchable-function-entry=5 "$@"; }

cat >expected.txt <<'EOF'
main <-[libc]
mid <-main
leaf <-mid
lib_entry <-main
lib_leaf <-lib_entry
mid <-main
leaf <-mid
lib_entry <-main
lib_leaf <-lib_entry
EOF
awk '{print $1}' expected.txt >expected-names.txt

# run_case LABEL ACTION: record the program; ACTION (a function) changes the
# files while it waits.
run_case() {
	local label=$1 action=$2 i
	rm -f prog libx.so in out
	build -o prog one.c -ldl && build -shared -fPIC -o libx.so lib1.c || fail "$label: gcc"
	mkfifo in
	"$UTRACE" record -p function -o t.dat -- ./prog "$PWD/libx.so" <in >out 2>rec.err &
	local rec=$!
	exec 8>in
	for ((i = 0; i < 1000; i++)); do
		grep -q ready out && break
		sleep 0.01
	done
	grep -q ready out || fail "$label: program not ready: $(cat rec.err)"
	"$action"
	echo go >&8
	exec 8>&-
	wait "$rec" || fail "$label: record exited $?: $(cat rec.err)"
	report t.dat | funcs >t.txt
	expect "$label: report" t.txt <expected.txt
	if command -v trace-cmd >/dev/null; then
		trace-cmd report t.dat 2>/dev/null | grep -E '^ *.+-[0-9]+ +\[[0-9]+\]' |
			sed -E 's/.*function: +([^ ]+)$/\1/' >tc.txt
		expect "$label: trace-cmd report" tc.txt <expected-names.txt
	fi
}

rebuild() {
	build -o prog two.c && build -shared -fPIC -o libx.so lib2.c || fail "rebuild: gcc"
}
run_case rebuilt rebuild
grep -q "/prog: changed since it was traced (build-id .* then, .* now); names from the session's copy" rec.err ||
	fail "rebuilt: record says nothing about prog: $(cat rec.err)"
grep -q "/libx.so: changed since it was traced" rec.err ||
	fail "rebuilt: record says nothing about libx.so: $(cat rec.err)"

delete() { rm prog libx.so; }
run_case deleted delete
grep -q "/prog: deleted since it was traced; names from the session's copy" rec.err ||
	fail "deleted: record says nothing about prog: $(cat rec.err)"
grep -q "/libx.so: deleted since it was traced" rec.err ||
	fail "deleted: record says nothing about libx.so: $(cat rec.err)"

# Stripped after the run: the same build-id, but the file has lost the
# program's own names; the session's copy still has them.
stripped() {
	# as `install -s` does: a new file, never a write into the mapped one
	strip -o prog.s prog && strip -o libx.s libx.so && mv prog.s prog && mv libx.s libx.so ||
		fail "strip"
}
run_case stripped stripped
[ -s rec.err ] && fail "stripped: record's stderr: $(cat rec.err)"

unchanged() { :; }
run_case unchanged unchanged
[ -s rec.err ] && fail "unchanged: record's stderr: $(cat rec.err)"
finish
