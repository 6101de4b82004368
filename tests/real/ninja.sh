#!/bin/bash
# SPDX-License-Identifier: MIT
# A real C++ program end to end: Debian's ninja-build (`apt-get source
# ninja-build`), built with each compiler's recipe as a user would build it
# (CXX='utrace g++' / CXX='utrace clang++' ./configure.py --bootstrap: g++
# 12 needs utrace's fix-up to link it), runs a fixed workload (ninja parsing
# a generated manifest of 400 edges: a dry run, -t targets, -t query) traced
# and untraced, and checks:
#   - the output is the same untraced, under function, function_graph and
#     the profiler;
#   - every function's calls are the same under the function tracer and the
#     profiler, and a few named functions are called as often as the
#     workload says (ManifestParser::ParseEdge once per edge per run);
#   - names are demangled (and raw with -O nosym-demangle);
#   - filters by demangled names: 'ManifestParser::ParseEdge',
#     'ManifestParser::*', '*::Parse*'.
# Too slow for make check (a build takes ~40 s of CPU per compiler): run
# by `make check-real`, which .ci/run runs too.  The source and the builds
# are kept in BUILD/real-ninja (the source is not in the repository).
#
#   UT_BUILD=build tests/real/ninja.sh        (make check-real)
. "$(dirname "$0")/../lib/common.sh"

REAL_DIR=${UT_REAL_DIR:-$UT_BUILD/real-ninja}
EDGES=400
RUNS=3 # ninja processes in the workload, each parsing the manifest once

mkdir -p "$REAL_DIR" || fail "cannot create $REAL_DIR"
WORK=$(pwd)

# fetch: REAL_DIR/src holds Debian's ninja-build source, patches applied.
fetch() {
	local tmp d
	[ -f "$REAL_DIR/src/configure.py" ] && return 0
	command -v python3 >/dev/null || skip "python3 is needed (configure.py)"
	tmp=$(mktemp -d "$REAL_DIR/fetch.XXXXXX") || return 1
	say "real: apt-get source ninja-build (into $REAL_DIR)"
	if ! (cd "$tmp" && timeout 120 apt-get source -qq ninja-build >apt.log 2>&1); then
		# Debian 12 has no deb-src entry by default: the same file tests/lib/real-program.sh adds
		if [ "$(id -u)" = 0 ] &&
			! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
			cat >/etc/apt/sources.list.d/utrace-bench-src.sources <<-'EOF'
			Types: deb-src
			URIs: http://deb.debian.org/debian
			Suites: bookworm
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			EOF
			timeout 60 apt-get update -qq >>"$tmp/apt.log" 2>&1
		fi
		(cd "$tmp" && timeout 120 apt-get source -qq ninja-build >>apt.log 2>&1) ||
			skip "cannot fetch ninja-build's source: $(grep -v '^ *$' "$tmp/apt.log" | tail -n 1)"
	fi
	d=$(ls -d "$tmp"/ninja-build-*/ | head -n 1)
	[ -f "$d/configure.py" ] || skip "no configure.py in the ninja-build source"
	mv "$d" "$REAL_DIR/src" && rm -rf "$tmp"
}

# build CXX: REAL_DIR/ninja.CXX, built as ninja's README says, with CXX='utrace CXX'
build() {
	local cxx=$1 dir=$REAL_DIR/build.$1
	[ -x "$REAL_DIR/ninja.$cxx" ] && return 0
	command -v "$cxx" >/dev/null || skip "$cxx is not installed"
	rm -rf "$dir" && cp -a "$REAL_DIR/src" "$dir" || return 1
	say "real: building ninja with CXX='utrace $cxx' ./configure.py --bootstrap"
	(cd "$dir" && CXX="$UTRACE $cxx" CFLAGS="-O2 -g" python3 ./configure.py --bootstrap >build.log 2>&1) ||
		{ tail -n 20 "$dir/build.log"; return 1; }
	mv "$dir/ninja" "$REAL_DIR/ninja.$cxx" && rm -rf "$dir"
}

# The workload: a manifest of EDGES compile edges and one link; three ninja
# runs.  Nothing reads less than a ninja writes: a `| head` would kill it
# with SIGPIPE in some runs, before its static destructors.
make_workload() {
	local d=$WORK/wl i
	mkdir -p "$d/s"
	{
		printf 'rule cc\n  command = cc -c $in -o $out\n  description = CC $out\n'
		printf 'rule link\n  command = cc $in -o $out\n'
		for i in $(seq 1 "$EDGES"); do
			printf 'build o/f%d.o: cc s/f%d.c\n' "$i" "$i"
			: >"$d/s/f$i.c"
		done
		printf 'build app: link'
		for i in $(seq 1 "$EDGES"); do printf ' o/f%d.o' "$i"; done
		printf '\ndefault app\n'
	} >"$d/build.ninja"
	touch -d '2020-01-01 00:00:00' "$d"/s/*.c
	cat >"$WORK/workload.sh" <<-'EOF'
	cd "$1" && "$2" -n -j1 && "$2" -t targets all | sort && "$2" -t query app >q.txt && head -n 5 q.txt
	EOF
}

# run OUT TRACER... -- NINJA: the workload under utrace record (fresh copy of the manifest)
run_traced() {
	local out=$1 ninja
	shift
	ninja=${*: -1}
	rm -rf "$WORK/run" && cp -a "$WORK/wl" "$WORK/run"
	"$UTRACE" record -o "$out" "${@:1:$#-2}" -- sh "$WORK/workload.sh" "$WORK/run" "$ninja" \
		>"$out.out" 2>"$out.err"
}

# name count, from the function tracer's report (names demangled)
tracer_counts() {
	report "$1" | funcs | sed -E 's/ <-.*$//' | sort | uniq -c | awk '{c=$1; $1=""; print substr($0, 2) "\t" c}' | sort
}

# name count, from the profiler's table (the merged one: before the first per-thread table)
profile_counts() {
	awk '/^==>/ {exit} NR > 2 && NF >= 8 {n = NF - 7; name = $1; for (i = 2; i <= n; i++) name = name " " $i;
		c[name] += $(n + 1)} END {for (k in c) print k "\t" c[k]}' "$1" | sort
}

one() {
	local cxx=$1 N=$WORK/ninja.$1
	cp "$REAL_DIR/ninja.$cxx" "$N"
	rm -rf "$WORK/run" && cp -a "$WORK/wl" "$WORK/run"
	sh "$WORK/workload.sh" "$WORK/run" "$N" >plain.out 2>&1 || fail "$cxx: untraced workload: $(tail -n 3 plain.out)"
	grep -q "^\[$((EDGES + 1))/$((EDGES + 1))\] cc " plain.out || fail "$cxx: the workload printed: $(head -n 3 plain.out)"

	run_traced f.dat -p function -- "$N" || fail "$cxx: record function: $(tail -n 3 f.dat.err)"
	check "$cxx: output under function as untraced" cmp -s plain.out f.dat.out
	run_traced g.dat -p function_graph -- "$N" || fail "$cxx: record graph: $(tail -n 3 g.dat.err)"
	check "$cxx: output under function_graph as untraced" cmp -s plain.out g.dat.out
	rm -rf "$WORK/run" && cp -a "$WORK/wl" "$WORK/run"
	"$UTRACE" profile -o prof.txt -- sh "$WORK/workload.sh" "$WORK/run" "$N" >p.out 2>p.err ||
		fail "$cxx: profile: $(tail -n 3 p.err)"
	check "$cxx: output under the profiler as untraced" cmp -s plain.out p.out

	tracer_counts f.dat >tc.txt
	profile_counts prof.txt >pc.txt
	expect "$cxx: calls per function, function tracer vs profiler" pc.txt <tc.txt
	[ "$(wc -l <tc.txt)" -gt 100 ] || fail "$cxx: only $(wc -l <tc.txt) functions traced"

	# a few functions whose calls the workload fixes
	grep -E '^(ManifestParser::ParseEdge\(|ManifestParser::Parse\(|ManifestParser::ParseRule\(|State::AddEdge\()' tc.txt |
		sed -E 's/\(.*\t/\t/' >named.txt
	expect "$cxx: calls of named functions" named.txt <<-EOF
	ManifestParser::Parse	$RUNS
	ManifestParser::ParseEdge	$((RUNS * (EDGES + 1)))
	ManifestParser::ParseRule	$((RUNS * 2))
	State::AddEdge	$((RUNS * (EDGES + 1)))
	EOF

	# names: demangled by default, raw on request; trace-cmd's file keeps the symbol table's
	grep -c '^_Z' tc.txt >raw.txt
	expect "$cxx: no mangled name in the default output" raw.txt <<<"0"
	report f.dat -O nosym-demangle | funcs | grep -c '^_ZN14ManifestParser9ParseEdge' >raw.txt
	expect "$cxx: -O nosym-demangle" raw.txt <<<"$((RUNS * (EDGES + 1)))"

	# filters by demangled names
	run_traced l1.dat -p function -l 'ManifestParser::ParseEdge' -- "$N" || fail "$cxx: -l ParseEdge: $(tail -n 3 l1.dat.err)"
	tracer_counts l1.dat | sed -E 's/\(.*\t/\t/' >l.txt
	expect "$cxx: -l ManifestParser::ParseEdge" l.txt <<<"ManifestParser::ParseEdge	$((RUNS * (EDGES + 1)))"
	run_traced l2.dat -p function -l 'ManifestParser::*' -- "$N" || fail "$cxx: -l ManifestParser::*: $(tail -n 3 l2.dat.err)"
	tracer_counts l2.dat | cut -f1 | grep -vc '^ManifestParser::' >l.txt
	expect "$cxx: -l 'ManifestParser::*' selects its members only" l.txt <<<"0"
	tracer_counts l2.dat | grep -E '^ManifestParser::(ParseEdge|Parse|ParseRule)\(' | cut -f2 | tr '\n' ' ' >l.txt
	tracer_counts f.dat | grep -E '^ManifestParser::(ParseEdge|Parse|ParseRule)\(' | cut -f2 | tr '\n' ' ' >l2.txt
	expect "$cxx: 'ManifestParser::*' counts as without filter" l.txt <l2.txt
	run_traced l3.dat -p function -l '*::Parse*' -- "$N" || fail "$cxx: -l '*::Parse*': $(tail -n 3 l3.dat.err)"
	tracer_counts l3.dat | cut -f1 | grep -vcE '::Parse[^:]*\(' >l.txt
	expect "$cxx: -l '*::Parse*' selects methods named Parse* only" l.txt <<<"0"
}

command -v flock >/dev/null || skip "flock is not installed"
exec {lock}>"$REAL_DIR/.lock"
flock -w 600 "$lock" || fail "waited 600 s for $REAL_DIR/.lock"
fetch || fail "fetching the source failed"
for cxx in g++ clang++; do
	build "$cxx" || fail "building ninja with utrace $cxx failed"
done
exec {lock}>&-
say "real: ninja $(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$REAL_DIR/src/debian/changelog")"
make_workload
for cxx in g++ clang++; do
	[ -x "$REAL_DIR/ninja.$cxx" ] && one "$cxx"
done
finish
