#!/bin/bash
# report --cpu N / --pid TID: only those events; the CPUs partition the
# events; --pid of one thread gives exactly that thread's known counts.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=t.dat tid cpus total sum c n
	record "$d" -- "$(prog threads "$s")" 4 30 || fail "$s: record exited $?: $(cat "$d.err")"
	report "$d" | events >all.txt
	total=$(wc -l <all.txt)
	expect_eq "$s: total events" $((2 + 4 * (1 + 30 * 4))) "$total"

	tid=$(grep ': t_thread ' all.txt | head -n 1 | sed -E 's/^ *[^ ]*-([0-9]+) .*/\1/')
	report "$d" --pid "$tid" | events >p.txt || fail "$s --pid: exit $?"
	report "$d" --pid "$tid" | count_funcs >c.txt
	expect "$s --pid $tid counts" c.txt <<'EOF'
t_a 30
t_b 60
t_thread 1
t_work 30
EOF
	grep -vE "^ *[^ ]*-$tid " p.txt >bad.txt
	[ -s bad.txt ] && fail "$s --pid $tid: other threads' events: $(head -n 1 bad.txt)"
	# --pid twice: the union
	local tid2
	tid2=$(grep ': main ' all.txt | sed -E 's/^ *[^ ]*-([0-9]+) .*/\1/')
	n=$(report "$d" --pid "$tid" --pid "$tid2" | events | wc -l)
	expect_eq "$s --pid $tid --pid $tid2" $((121 + 2)) "$n"
	n=$(report "$d" --pid 999999999 | events | wc -l)
	expect_eq "$s --pid of no thread" 0 "$n"

	# CPUs: each --cpu N has only [00N]; together they are all the events.
	cpus=$(sed -E 's/^ *[^ ]*-[0-9]+ +\[([0-9]+)\].*/\1/' all.txt | sort -u)
	sum=0
	for c in $cpus; do
		c=$((10#$c))
		report "$d" --cpu "$c" | events >c.txt
		grep -vE "\[0*$c\]" c.txt >bad.txt
		[ -s bad.txt ] && fail "$s --cpu $c: other CPUs' events: $(head -n 1 bad.txt)"
		sum=$((sum + $(wc -l <c.txt)))
	done
	expect_eq "$s: events of all --cpu" "$total" "$sum"
	# combined filters: the intersection
	c=$(grep -E "^ *[^ ]*-$tid " all.txt | head -n 1 | sed -E 's/^ *[^ ]*-[0-9]+ +\[([0-9]+)\].*/\1/')
	n=$(grep -cE "^ *[^ ]*-$tid +\[$c\]" all.txt)
	expect_eq "$s --cpu $((10#$c)) --pid $tid" "$n" "$(report "$d" --cpu $((10#$c)) --pid "$tid" | events | wc -l)"
	no_crash "$d.err" "$d.rerr"
}

for_styles one
finish
