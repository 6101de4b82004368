#!/bin/bash
# A function known by several names (symbols at one address) is one
# function that any of its names selects (issue 18): the alias attribute
# (al_area_impl = al_area), a weak alias (al_volume of al_vol_real), a
# static function exported under another name (gcc keeps al_hidden beside
# al_api), an __internal name (__al_getbuf = al_getbuf); in C++ an alias
# of shapes::scale(int), shapes::resize(int), demangled or mangled; two
# identical static functions gcc folds into one (-fipa-icf).  Every
# filter word takes them (-l, -n, -g, function commands, globs); the
# function is one site, counted and traced once per call and printed by
# the name it is listed by (global over weak over local, fewer leading
# underscores, then the shortest); `list -f` shows the other names after
# it.  A name of a function without a site is explained as the others are.
. "$(dirname "$0")/../lib/common.sh"

# counts STYLE RECORD-OPTIONS...: "function count" of the trace
counts() {
	local s=$1
	shift
	record c.dat "$@" -- "$(prog aliases "$s")" || { fail "$s: record $*: $(cat c.dat.err)"; return; }
	report c.dat | count_funcs
}

one() {
	local s=$1 P
	P=$(prog aliases "$s")
	{
		echo "== -l by other names"
		counts "$s" -p function -l al_area_impl -l al_volume -l '__al_*' -l al_api
		echo "== -l by both names: one function"
		counts "$s" -p function -l al_area -l al_area_impl
		echo "== -n by another name"
		counts "$s" -p function -l 'al_*' -n al_area_impl -n al_volume -n 'al_twin*'
		echo "== glob over other names only"
		counts "$s" -p function -l '*_impl' -l '*_real'
		echo "== command by another name"
		counts "$s" -p function -l 'al_*' -l 'al_volume:traceoff'
		echo "== -g by another name"
		record g.dat -p function_graph -g __al_getbuf -- "$P" || fail "$s: -g: $(cat g.dat.err)"
		report g.dat | events | sed -E 's/^.*\| *//' | sort | uniq -c | awk '{print $2, $1}'
	} >c.txt
	expect "$s: filters by any name" c.txt <<'EOF'
== -l by other names
al_api 1
al_area 3
al_getbuf 2
al_vol_real 2
== -l by both names: one function
al_area 3
== -n by another name
al_api 1
al_getbuf 2
== glob over other names only
al_area 3
al_vol_real 2
== command by another name
al_area 3
== -g by another name
al_getbuf(); 2
EOF
	# the profiler: one row, every call
	"$UTRACE" profile -l al_area_impl -l al_area -- "$P" 2>&1 |
		awk '$1 ~ /^al_/ {print $1, $2}' >p.txt
	expect "$s: profile" p.txt <<'EOF'
al_area 3
EOF
	# identical code folding: gcc merges the static twins into one function, clang does not
	counts "$s" -p function -l al_twin_b >t.txt
	case $s in
	gcc-*) printf 'al_twin_a 3\n' ;;
	*) printf 'al_twin_b 2\n' ;;
	esac >t.want
	check "$s: folded twins" diff -u t.want t.txt
	# list -f: the listed name, then the others (clang keeps no al_hidden)
	"$UTRACE" list -f "$P" 2>/dev/null | grep '^al_' | sort >l.txt
	case $s in
	gcc-*) hidden=' [= al_hidden]' twins='al_twin_a [= al_twin_b]' ;;
	*) hidden= twins=$'al_twin_a\nal_twin_b' ;;
	esac
	expect "$s: list -f" l.txt <<EOF
al_api$hidden
al_area [= al_area_impl]
al_getbuf [= __al_getbuf]
$twins
al_vol_real [= al_volume]
EOF
	# a name of a function without a site: explained, nothing runs
	record q.dat -p function -l al_quiet_impl -- "$P"
	expect_eq "$s: no site: status" 2 $?
	sed "s|$P|PROG|" q.dat.err >q.txt
	expect "$s: no site: why" q.txt <<'EOF'
utrace: set_ftrace_filter: 'al_quiet_impl' matches no traceable function of PROG
  al_quiet_impl, another name of al_quiet, is in PROG but has no site (a part the compiler split off, or built with no_instrument_function)
EOF
	[ -s q.dat.out ] && fail "$s: the program ran: $(cat q.dat.out)"

	# C++: the alias demangled, mangled or as a pattern; printed as the function's name
	P=$(prog cxx_aliases "$s")
	for w in 'shapes::resize' 'shapes::resize(int)' '_ZN6shapes6resizeEi' '*::res*'; do
		record x.dat -p function -l "$w" -- "$P" || { fail "$s: -l $w: $(cat x.dat.err)"; continue; }
		echo "== $w"
		report x.dat | count_funcs
		sed 's/^/stderr: /' x.dat.err # nothing, or what went wrong shows in the diff
	done >x.txt
	expect "$s: C++ alias" x.txt <<'EOF'
== shapes::resize
shapes::scale(int) 3
== shapes::resize(int)
shapes::scale(int) 3
== _ZN6shapes6resizeEi
shapes::scale(int) 3
== *::res*
shapes::scale(int) 3
EOF
	"$UTRACE" list -f "$P" 2>/dev/null | grep scale >xl.txt
	expect "$s: C++ list -f" xl.txt <<'EOF'
shapes::scale(int) [= shapes::resize(int)]
EOF
}
for_styles one
finish
