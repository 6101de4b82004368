#!/bin/bash
# Library calls of a dlopened library (issue 14): a plugin built plainly
# (no sites) calls libc (malloc, and strlen, an IFUNC: named strlen, not
# the implementation its resolver chose) and a function of its own
# dependency, also plain, through its PLT; the hooks are in place before
# dlopen returns, and again after a dlclose and a second dlopen.  Calls
# into the plugin through a dlsym pointer go through no GOT: not traced.
. "$(dirname "$0")/../lib/common.sh"
command -v gcc >/dev/null || skip "no gcc"
export LC_ALL=C

cat >dep.c <<'C'
__attribute__((noinline)) int dep_add(int a, int b) { return a + b; }
C
cat >plug.c <<'C'
#include <stdlib.h>
#include <string.h>
int dep_add(int a, int b);
void *volatile sink;
int plug_run(const char *s, int n)
{
	int t = 0;
	for (int i = 0; i < n; i++) {
		char *p = malloc(8);
		sink = p;
		free(p);
		t = dep_add(t, (int)strlen(s));
	}
	return t;
}
C
cat >prog.c <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
	for (int round = 0; round < 2; round++) {
		/* the second time lazily: its slots to libdep, local to it, are bound by utrace */
		void *h = dlopen(argv[1], round ? RTLD_LAZY : RTLD_NOW);
		int (*run)(const char *, int) = h ? (int (*)(const char *, int))dlsym(h, "plug_run") : 0;
		if (!run)
			return 1;
		printf("%d %zu\n", run("hello", 3 + round), strlen(argv[1]) > 0);
		dlclose(h);
	}
	return 0;
}
C
gcc -O2 -fPIC -shared -o libdep.so dep.c &&
	gcc -O2 -fPIC -shared -o libplug.so plug.c -L. -ldep -Wl,-rpath,"$PWD" &&
	gcc -O2 -fno-builtin-strlen -fpatchable-function-entry=5 -o prog prog.c -ldl || fail "gcc"

# words naming what only a dlopened library has take :mod: (as for any function of a plugin)
record a.dat -O plt -p function -l main -l malloc -l free -l strlen -l ':mod:libdep' \
	-- ./prog "$PWD/libplug.so"
expect_eq "status" 0 $?
expect_eq "stdout" "15 1 20 1" "$(tr '\n' ' ' <a.dat.out | sed 's/ $//')"
report a.dat | funcs | grep -v _IO_file_doallocate | sort | uniq -c | awk '{$1 = $1; print}' >got
expect "counts" got <<'X'
7 dep_add <-plug_run
7 free <-plug_run
1 main <-[libc]
7 malloc <-plug_run
2 strlen <-main
7 strlen <-plug_run
X
# :mod: of a dlopened library (the words are checked when it loads)
record b.dat -O plt -p function -l ':mod:libdep' -- ./prog "$PWD/libplug.so"
report b.dat | funcs | sort | uniq -c | awk '{$1 = $1; print}' >got
expect "mod" got <<<"7 dep_add <-plug_run"
no_crash a.dat.err b.dat.err
finish
