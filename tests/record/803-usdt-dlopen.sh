#!/bin/bash
# USDT probes of a dlopen()ed library and of a thread (issue 13): the
# library's probes are found when it is loaded and enabled before dlopen
# returns; after its dlclose the program's own probes still work (a
# dlclose used to forget every object without sites, the program's too,
# and its enabled probe then killed it with SIGTRAP).  -e of a provider
# the program does not load at start is a warning (it may come with a
# dlopen), of a probe a loaded provider lacks an error.
. "$(dirname "$0")/../lib/common.sh"

cat >plug.c <<'EOF'
#include <sys/sdt.h>
int plug_work(int x)
{
	STAP_PROBE2(plug, work, x, x * 2);
	return x + 1;
}
EOF
cat >app.c <<'EOF'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/sdt.h>
static void *ticker(void *arg)
{
	for (int i = 0; i < 3; i++)
		DTRACE_PROBE1(app, tick, 100 + i);
	return arg;
}
int main(int argc, char **argv)
{
	pthread_t t;
	int s = 0;
	pthread_create(&t, NULL, ticker, NULL);
	pthread_join(t, NULL);
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h)
		return 1;
	int (*work)(int) = (int (*)(int))dlsym(h, "plug_work");
	for (int i = 0; i < 4; i++)
		s += work(i);
	dlclose(h);
	DTRACE_PROBE1(app, done, s);
	printf("sum %d\n", s);
	return 0;
}
EOF
gcc -O2 -fPIC -shared -o libplug.so plug.c || fail "cannot build the plugin"
gcc -O2 -fpatchable-function-entry=5 -o app app.c -ldl -lpthread || fail "cannot build the program"
gcc -O2 -o app0 app.c -ldl -lpthread || fail "cannot build the program without sites"

# A program without sites: its probe after the dlclose.
record nosites.dat -e 'app:*' -e 'plug:*' -- ./app0 ./libplug.so
expect_eq "without sites: exit status" 0 "$?"
report nosites.dat | events | grep -oE ' (tick|work|done): ' | sort | uniq -c | awk '{print $2, $1}' >nosites.txt
expect "without sites: events" nosites.txt <<'EOF'
done: 1
tick: 3
work: 4
EOF

record all.dat -e 'app:*' -e 'plug:*' -- ./app ./libplug.so
expect_eq "record's exit status (the program's)" 0 "$?"
expect "stdout" all.dat.out <<'EOF'
sum 10
EOF
expect "the plugin's provider: a warning" all.dat.err <<'EOF'
utrace: warning: -e plug:*: no provider of that name in ./app or the libraries it loads at start; it applies if the program dlopen()s one that has it
EOF
report all.dat | events | sed -E 's/^ *[^ ]+-([0-9]+) .*[0-9]\.[0-9]{6}: /\1 /' >all.txt
# the thread's events under its own tid, the others under the main thread's
awk '{print $2, $3, $4}' all.txt >ev.txt
expect "events" ev.txt <<'EOF'
tick: arg1=100 
tick: arg1=101 
tick: arg1=102 
work: arg1=0 arg2=0
work: arg1=1 arg2=2
work: arg1=2 arg2=4
work: arg1=3 arg2=6
done: arg1=10 
EOF
t1=$(awk '/tick:/ {print $1; exit}' all.txt)
t2=$(awk '/done:/ {print $1}' all.txt)
[ -n "$t1" ] && [ "$t1" != "$t2" ] || fail "the thread's events are not its own ($t1, $t2)"

record bad.dat -e app:nosuch -- ./app ./libplug.so
expect_eq "a probe the program's provider lacks: exit status" 2 "$?"
[ -s bad.dat.out ] && fail "the program ran despite an unknown event"
finish
