#!/bin/bash
# Parents inside a stripped libc (Debian's has .dynsym only): a callback
# called from an exported function is named after it (lfind, tsearch,
# dl_iterate_phdr: the address lies inside the dynamic symbol's st_size);
# one called from a static function (__libc_start_call_main, the signal
# return trampoline, start_thread) prints [libc], never the exported
# function before it, whose range ends before the address.
. "$(dirname "$0")/../lib/common.sh"

command -v gcc >/dev/null || skip "no gcc"
cat >cb.c <<'EOF'
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <search.h>
#include <signal.h>
#include <stdlib.h>
volatile int sink;
__attribute__((noinline)) int cmp(const void *a, const void *b)
{
	sink++;
	return *(const int *)a - *(const int *)b;
}
__attribute__((noinline)) int cb(struct dl_phdr_info *i, size_t s, void *d)
{
	sink = (int)s + (i != d);
	return 1;
}
__attribute__((noinline)) void handler(int s) { sink = s; }
__attribute__((noinline)) void *thr(void *a) { sink++; return a; }
int main(int argc, char **argv)
{
	int a[] = {3, 1, 2};
	size_t n = 3;
	int k = argc + 1;
	void *root = NULL;
	pthread_t t;

	lfind(&k, a, &n, sizeof(int), cmp);
	tsearch(&a[0], &root, cmp);
	tsearch(&a[1], &root, cmp);
	dl_iterate_phdr(cb, argv);
	signal(SIGUSR1, handler);
	raise(SIGUSR1);
	pthread_create(&t, NULL, thr, NULL);
	pthread_join(t, NULL);
	return 0;
}
EOF
gcc -O2 -fpatchable-function-entry=5 -o cb cb.c -lpthread || fail "gcc"
record t.dat -p function -- ./cb || fail "record: $(cat t.dat.err)"
report t.dat | funcs | sort | uniq -c | awk '{$1 = $1; print}' | sort >t.txt
expect "parents" t.txt <<'EOF'
1 cb <-dl_iterate_phdr
1 cmp <-tsearch
1 handler <-[libc]
1 main <-[libc]
1 thr <-[libc]
3 cmp <-lfind
EOF
finish
