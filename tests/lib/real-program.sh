# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# A real program for the end-to-end tests: Debian's lua5.4 interpreter, built
# from its source package with utrace's sites.  Source it after common.sh:
#
#   . "$(dirname "$0")/../lib/real-program.sh"
#   real_lua          # sets REAL_LUA (the interpreter) and REAL_VERSION
#
# The source (`apt-get source lua5.4`, Debian's patches applied) and the
# binary are cached in REAL_DIR, by default the directory above UT_PROGS
# (the gcc build directory, which the ASan pass shares), so only the first
# run fetches and compiles (about 10 s).  Fetching and building hold a lock
# (flock on REAL_DIR/.lock): scripts running at once wait for each other and
# then reuse the result.  Everything is created under a temporary name and
# renamed into place, so a run killed half-way leaves nothing half-built.
# If the source cannot be fetched (no network, no deb-src entry that apt can
# use), the calling script is skipped (exit 77) with the reason.

REAL_DIR=${UT_REAL_DIR:-$(dirname "$UT_PROGS")/real}
REAL_CC=gcc
# -O2 -fpatchable-function-entry=5: the build the README documents.  The
# two -D pin what lua randomises per run (the string-hash seed mixes time()
# with ASLR'd addresses; table.sort may pick a clock()-based pivot): with a
# random seed, hash collisions differ between runs and so does, e.g., the
# number of calls of mainpositionTV (581, 583, 599 in three runs), and two
# runs of the same script would not be comparable.
# STRCACHE_N=1: luaS_new's string cache picks its row from the C string's
# *address* (mod 53), so which lookups hit depended on where things were
# mapped (ASLR, the environment's size, valgrind's layout): one cache row
# makes hits depend on contents only.
REAL_CFLAGS="-O2 -fpatchable-function-entry=5 -DLUA_USE_LINUX -Dluai_makeseed(L)=0x5eedu -Dl_randomizePivot()=0x9e3779b9u -DSTRCACHE_N=1 -DSTRCACHE_M=2 -w"

_real_log() { echo "real-program: $*"; }

# _real_fetch: REAL_DIR/src-lua5.4 holds the extracted source package.
# Returns 1 (with the reason in REAL_WHY) if it cannot be fetched.
_real_fetch() {
	local tmp d rc
	[ -d "$REAL_DIR/src-lua5.4" ] && return 0
	rm -rf "$REAL_DIR"/fetch.*
	tmp=$(mktemp -d "$REAL_DIR/fetch.XXXXXX") || return 1
	_real_log "fetching lua5.4 with apt-get source (cached in $REAL_DIR)"
	# A hung network costs 40 s at most, so that the skip comes before the
	# runner's 120 s timeout.
	(cd "$tmp" && timeout 40 apt-get source -qq lua5.4 >apt.log 2>&1)
	rc=$?
	# No deb-src configured: add one for bookworm (root only; the same file
	# bench/run adds, so the two never duplicate it), then try again.
	if [ $rc != 0 ] && [ $rc != 124 ] && [ "$(id -u)" = 0 ] &&
		! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		_real_log "no deb-src entry: adding one for bookworm and running apt-get update"
		cat >/etc/apt/sources.list.d/utrace-bench-src.sources <<-'EOF'
		Types: deb-src
		URIs: http://deb.debian.org/debian
		Suites: bookworm
		Components: main
		Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOF
		timeout 30 apt-get update -qq >>"$tmp/apt.log" 2>&1 &&
			rm -rf "$tmp"/lua5.4* &&
			(cd "$tmp" && timeout 40 apt-get source -qq lua5.4 >>apt.log 2>&1)
		rc=$?
	fi
	[ $rc = 124 ] && echo "apt-get source timed out after 40 s" >>"$tmp/apt.log"
	d=
	[ $rc = 0 ] && d=$(ls -d "$tmp"/lua5.4-*/ 2>/dev/null | head -n 1)
	if [ -z "$d" ] || [ ! -f "$d/src/lua.c" ]; then
		# Offline, bench/run's copy (same package) is as good.
		d=$(ls -d "${UT_SRCDIR:-/nonexistent}"/bench/build-real/lua5.4-*/ 2>/dev/null | head -n 1)
		if [ -n "$d" ] && [ -f "$d/src/lua.c" ]; then
			_real_log "apt-get source failed; using bench/run's copy $d"
			cp -a "$d" "$tmp/copy" || return 1
			d=$tmp/copy/
		else
			REAL_WHY="cannot fetch Debian's lua5.4 source (apt-get source lua5.4: $(grep -v '^ *$' "$tmp/apt.log" | tail -n 1))"
			rm -rf "$tmp"
			return 1
		fi
	fi
	mv "$d" "$REAL_DIR/src-lua5.4" || return 1
	rm -rf "$tmp"
}

# _real_build: REAL_DIR/lua, compiled from src/*.c (all but luac.c) with
# REAL_CFLAGS, one gcc per file, nproc at a time.  Debian's build system is
# not used: it builds a shared library and luac too, which takes longer and
# gives nothing here.
_real_build() {
	local src=$REAL_DIR/src-lua5.4/src obj rc ma
	if [ -x "$REAL_DIR/lua" ] && [ "$(cat "$REAL_DIR/lua.flags" 2>/dev/null)" = "$REAL_CC $REAL_CFLAGS" ]; then
		return 0
	fi
	rm -rf "$REAL_DIR"/obj.*
	obj=$(mktemp -d "$REAL_DIR/obj.XXXXXX") || return 1
	_real_log "building lua ($REAL_CC $REAL_CFLAGS)"
	# Debian's luaconf.h includes a header its rules generate.
	ma=$($REAL_CC -print-multiarch 2>/dev/null)
	echo "#define DEB_HOST_MULTIARCH \"${ma:-x86_64-linux-gnu}\"" >"$obj/lua5.4-deb-multiarch.h"
	# (word splitting of $CFLAGS is wanted; it holds no glob characters)
	# shellcheck disable=SC2016 # expanded by that sh
	(cd "$src" && printf '%s\n' *.c | grep -vx -e luac.c -e onelua.c |
		xargs -P "$(nproc)" -n 1 env CC="$REAL_CC" CFLAGS="$REAL_CFLAGS" OBJ="$obj" \
			sh -c '$CC $CFLAGS -I"$OBJ" -c "$1" -o "$OBJ/${1%.c}.o"' sh) &&
		$REAL_CC -o "$obj/lua" "$obj"/*.o -lm -ldl
	rc=$?
	if [ $rc = 0 ]; then
		mv "$obj/lua" "$REAL_DIR/lua" && echo "$REAL_CC $REAL_CFLAGS" >"$REAL_DIR/lua.flags"
		rc=$?
	fi
	rm -rf "$obj"
	return $rc
}

# real_lua: REAL_LUA = the interpreter, REAL_VERSION = the Debian version.
# Skips the script if the source cannot be fetched or gcc is missing; fails
# it if the build fails.
real_lua() {
	local fd
	command -v "$REAL_CC" >/dev/null || skip "$REAL_CC is not installed"
	command -v flock >/dev/null || skip "flock is not installed"
	mkdir -p "$REAL_DIR" || skip "cannot create $REAL_DIR"
	exec {fd}>"$REAL_DIR/.lock"
	if ! flock -w 100 "$fd"; then
		echo "FAIL: waited 100 s for $REAL_DIR/.lock"
		exit 1
	fi
	REAL_WHY=
	if ! _real_fetch; then
		exec {fd}>&-
		skip "${REAL_WHY:-cannot fetch the lua5.4 source package}"
	fi
	if ! _real_build; then
		exec {fd}>&-
		echo "FAIL: building lua from $REAL_DIR/src-lua5.4 failed"
		exit 1
	fi
	exec {fd}>&-
	# shellcheck disable=SC2034 # used by the scripts that source this file
	REAL_LUA=$REAL_DIR/lua
	# "lua5.4 (5.4.4-3+deb12u1) bookworm-security; urgency=medium"
	REAL_VERSION=$(sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$REAL_DIR/src-lua5.4/debian/changelog" 2>/dev/null)
	REAL_VERSION=${REAL_VERSION:-?}
}
