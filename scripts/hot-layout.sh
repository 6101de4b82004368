#!/usr/bin/env bash
# scripts/hot-layout.sh: regenerate arch/x86_64/hot_layout.h, the field
# offsets trampoline.S's fast paths use.  Run it (from the top of the tree)
# when the build stops at a static assertion in
# libutrace/tracers/hot_layout.c: a struct they read changed.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-gcc} -std=gnu11 -D_GNU_SOURCE -DUT_HOT_LAYOUT_PRINT -Iinclude -I. -Iarch/x86_64 \
	-o "$tmp/p" libutrace/tracers/hot_layout.c
"$tmp/p" >arch/x86_64/hot_layout.h
echo "wrote arch/x86_64/hot_layout.h"
