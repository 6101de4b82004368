#!/bin/bash
# `make clean` removes the standard build directories; `make clean BUILD=DIR`
# removes DIR (the one it was asked to clean), not build/; BUILD=. is
# refused.  Dry runs only (make -n): the real build must survive.
. "$(dirname "$0")/../lib/common.sh"

src=$(cd "$(dirname "$0")/../.." && pwd)
# A sub-make of `make check BUILD=...` would inherit its variables and flags.
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u BUILD make -s -n -C "$src" "$@"; }

mk clean BUILD=/nonexistent/x >custom.out 2>&1
expect "clean BUILD=DIR" custom.out <<'OUT'
rm -rf /nonexistent/x
OUT

mk clean >std.out 2>&1
expect "plain clean" std.out <<'OUT'
rm -rf build build-clang build-asan build-fuzz
OUT

for b in .; do
	mk clean BUILD="$b" >bad.out 2>&1 && fail "clean BUILD='$b' was not refused"
	grep -q "refusing" bad.out || fail "clean BUILD='$b': $(cat bad.out)"
done

finish
