#!/bin/bash
# The common case of the function tracer, function_graph and the profiler
# is done by the trampolines themselves, without a call into C: in a
# program making 4000 traced calls (a loop over a leaf and a recursion),
# the C entries (ut_function_entry, ut_graph_entry, ut_graph_return) run
# only for what is unusual -- the thread's first call, a page to open, a
# new profiler row, a time delta too large (valgrind runs the program
# slowly: some) -- far fewer than once per call.  Counted by callgrind.
# The records and the profile are what the C paths write: the reports are
# checked as usual.
. "$(dirname "$0")/../lib/common.sh"

command -v gcc >/dev/null || skip "no gcc"
command -v valgrind >/dev/null || skip "no valgrind"

cat >hot.c <<'EOF2'
__attribute__((noinline)) unsigned leaf(unsigned x) { return x * 2654435761u + 1; }
__attribute__((noinline)) long fib(int n)
{
	if (n < 2)
		return n;
	long a = fib(n - 1), b = fib(n - 2);
	__asm__ volatile("" : "+r"(a), "+r"(b));
	return a + b;
}
volatile long sink;
int main(void)
{
	unsigned s = 1;
	for (int i = 0; i < 3000; i++)
		s = leaf(s);
	sink = s + fib(14); /* fib(14): 1219 calls */
	return 0;
}
EOF2
gcc -O2 -fpatchable-function-entry=5 hot.c -o hot || fail "gcc failed"

# c_calls FILE FUNCTION: calls into FUNCTION in a callgrind profile (names
# are given once, as "(id) name", then by their id alone).
c_calls() {
	awk -v f="$2" '
		/^c?fn=\([0-9]+\) / { id = $1; sub(/^c?fn=/, "", id); name[id] = $2 }
		/^cfn=/ { id = $1; sub(/^cfn=/, "", id); hit = (name[id] == f); next }
		/^calls=/ && hit { split($1, a, "="); n += a[2]; hit = 0 }
		END { print n + 0 }' "$1"
}

# run NAME UTRACE-ARGS...: the program under callgrind under utrace.
run() {
	local name=$1
	shift
	"$UTRACE" "$@" valgrind --tool=callgrind --smc-check=all \
		--callgrind-out-file="$PWD/$name.cg" ./hot >"$name.out" 2>"$name.err" ||
		fail "$name: exited $?: $(tail -3 "$name.err")"
}

run fn record -o fn.dat -p function
run fg record -o fg.dat -p function_graph
run pr profile -o pr.txt
for c in "fn ut_function_entry" "fg ut_graph_entry" "fg ut_graph_return" \
	 "pr ut_graph_entry" "pr ut_graph_return"; do
	set -- $c
	n=$(c_calls "$1.cg" "$2")
	say "$1: $2 called $n times"
	[ "$n" -lt 1000 ] || fail "$1: $2 called $n times for 4220 traced calls"
done

# What the fast paths wrote reads back as usual: every call is there.
report fn.dat | grep -c ': leaf <-main' >fn.n
expect "function: leaf events" fn.n <<'EOF2'
3000
EOF2
report fg.dat | grep -cE 'fib\(\);|fib\(\) \{' >fg.n
expect "function_graph: fib calls" fg.n <<'EOF2'
1219
EOF2
awk '$1 == "leaf" || $1 == "fib" || $1 == "main" { print $1, $2 }' pr.txt | sort >pr.hits
expect "profile: hits" pr.hits <<'EOF2'
fib 1219
leaf 3000
main 1
EOF2
finish
