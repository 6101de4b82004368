#!/bin/bash
# Exactness against an independent count: valgrind's callgrind counts the
# calls of every function; utrace's per-function event counts must be the
# same for the traced functions.  (pfe styles only: -pg programs start the
# gprof timer, whose SIGPROF kills them under valgrind.)
. "$(dirname "$0")/../lib/common.sh"

command -v valgrind >/dev/null || skip "valgrind is not installed"

# callgrind.out -> "function calls" (recursion levels name'N merged)
cg_counts() {
	awk '
	function parse(s,   id, rest) {
		if (match(s, /^\([0-9]+\)/)) {
			id = substr(s, RSTART, RLENGTH)
			rest = substr(s, RLENGTH + 2)
			if (rest != "") name[id] = rest
			return id
		}
		name[s] = s
		return s
	}
	/^fn=/ { parse(substr($0, 4)); next }
	/^cfn=/ { cur = parse(substr($0, 5)); next }
	/^calls=/ { split(substr($0, 7), a, " "); cnt[cur] += a[1] }
	END {
		for (k in cnt) { n = name[k]; sub(/\047[0-9]+$/, "", n); tot[n] += cnt[k] }
		for (n in tot) print n, tot[n]
	}' "$1" | sort
}

n=0
for s in $STYLES; do
	case $s in *-pfe) ;; *) continue ;; esac
	for p in "single 40" "recurse" "threads 3 100" "shlib"; do
		set -- $p
		name=$1
		shift
		P=$(prog "$name" "$s")
		valgrind --tool=callgrind --callgrind-out-file=cg.out "$P" "$@" >cg.stdout 2>cg.err ||
			fail "$s $name: valgrind exited $?: $(tail -n 3 cg.err)"
		record e.dat -- "$P" "$@" || fail "$s $name: record exited $?"
		cmp -s cg.stdout e.dat.out || fail "$s $name: stdout differs under valgrind and utrace"
		report e.dat | count_funcs >u.txt
		# callgrind's counts of the functions utrace traced
		cg_counts cg.out | awk 'NR == FNR {want[$1] = 1; next} ($1 in want)' u.txt - >v.txt
		if ! cmp -s u.txt v.txt; then
			fail "$s $name: utrace and callgrind counts differ (< utrace, > callgrind):"
			diff u.txt v.txt | grep '^[<>]'
		fi
		n=$((n + 1))
	done
done
[ $n -gt 0 ] || skip "no -pfe style in STYLES"
finish
