#!/bin/bash
# Exactness on a real program: Debian's lua5.4 interpreter, built from its
# source package with -O2 -fpatchable-function-entry=5 (tests/lib/
# real-program.sh fetches and builds it once, cached), runs a small
# deterministic script under `utrace record` and under valgrind's callgrind.
# For every function of the program that has a site (`utrace list -f`), the
# number of utrace events must equal the number of times callgrind executed
# the function's first instruction, and the program's stdout must be the same
# traced, untraced and under valgrind.
#
# Why the first instruction and not callgrind's calls= counts (which
# 151-callgrind.sh uses on small programs): utrace's site is the function's
# first instruction, so an event is an *entry*, however the function was
# entered.  At -O2 gcc turns calls in tail position into jumps (lua is full of
# them: luaV_execute, the parser, the lexer), and callgrind's call graph
# counts such entries by heuristics: on this workload calls= says 159 calls of
# check_match, which is entered 37 times.  The execution count of the entry
# instruction (--dump-instr=yes) is exact whatever the control flow; gcc's
# recursion-to-loop rewrites jump to after the entry nops, never to them, so
# they are not counted there (and utrace does not see them either).  The -fpfe
# nops are at the symbol's address (no nops before the entry), so "first
# instruction" is the address nm gives for the function.
#
# Exceptions: none.  Every function is compared, including those that run
# 0 times (a site utrace missed, or an event of a function that never ran,
# would show there).
. "$(dirname "$0")/../lib/common.sh"
. "$(dirname "$0")/../lib/real-program.sh"

command -v valgrind >/dev/null || skip "valgrind is not installed"
command -v nm >/dev/null || skip "nm (binutils) is not installed"
real_lua
LUA=$REAL_LUA

# A few thousand lua-level calls; ~93,000 C function entries.  No
# math.random, os.time or tables keyed by tables/functions (their hashes are
# addresses, which differ under valgrind).
cat >t.lua <<'EOF'
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function counter()
  local c = 0
  return function(k) c = c + (k or 1); return c end
end
local words = {}
for i = 1, 300 do
  words[i] = string.format("w%04d", (i * 7919) % 1009):rep(1 + i % 3)
end
table.sort(words, function(a, b)
  if #a ~= #b then return #a > #b end
  return a < b
end)
local inc = counter()
local parts = {}
for i = 1, #words, 5 do
  local w = words[i]:upper():sub(2, 6):gsub("0", "o")
  parts[#parts + 1] = w
  inc(#w)
end
local s = table.concat(parts, ",")
local n = 0
for w in s:gmatch("[^,]+") do n = n + #w + select("#", w:byte(1, -1)) end
local function ack(m, k)
  if m == 0 then return k + 1 end
  if k == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, k - 1))
end
print(fib(15), ack(2, 3), #words, words[1], words[#words], inc(0), n, #s)
EOF
# -E: ignore LUA_INIT and LUA_PATH from the environment.
"$LUA" -E t.lua >plain.out 2>plain.err || fail "lua exited $? untraced: $(head -n 3 plain.err)"
expect_eq "untraced output" "610	9	300	w0026w0026w0026	w1005	280	560	339" "$(cat plain.out)"

# The buffer holds every event (~1.5 MB): the comparison must not depend on
# how fast the recorder drains.
record t.dat -b 16384 -- "$LUA" -E t.lua || fail "record exited $?: $(tail -n 3 t.dat.err)"
no_crash t.dat.err
cmp -s plain.out t.dat.out || fail "stdout differs traced and untraced"
grep -i 'lost' t.dat.err && fail "events lost (see above)"

valgrind --tool=callgrind --dump-instr=yes --dump-line=no --compress-pos=no \
	--compress-strings=no --callgrind-out-file=cg.out "$LUA" -E t.lua >cg.stdout 2>cg.err ||
	fail "valgrind exited $?: $(tail -n 3 cg.err)"
cmp -s plain.out cg.stdout || fail "stdout differs under valgrind and untraced"

# Sites: the program's functions in available_filter_functions.
"$UTRACE" list -f "$LUA" 2>list.err | grep -v ' \[' | sort -u >sites.txt
[ -s sites.txt ] || fail "utrace list -f $LUA printed no function: $(head -n 3 list.err)"

# utrace: events per function, and 0 for the sites that have none.
report t.dat >report.txt || fail "report exited $?: $(head -n 3 t.dat.rerr)"
no_crash t.dat.rerr
count_funcs <report.txt | sort >u.all
written=$(sed -n 's|^# entries-in-buffer/entries-written: [0-9]*/\([0-9]*\).*|\1|p' report.txt)
nev=$(awk '{ n += $2 } END { print n + 0 }' u.all)
expect_eq "events printed vs entries-written" "$written" "$nev"
awk 'NR == FNR { site[$1] = 1; next } !($1 in site)' sites.txt u.all >u.extra
if [ -s u.extra ]; then
	fail "utrace events of functions that are not sites of $LUA:"
	head -n 20 u.extra
fi
awk 'NR == FNR { n[$1] = $2; next } { print $1, ($1 in n) ? n[$1] : 0 }' u.all sites.txt >u.txt

# callgrind: executions of each instruction of the lua binary (summed over
# callgrind's contexts: recursion levels, callers), then those of each
# site's first instruction.  Addresses are the object's own (nm's) for a PIE.
# The line after calls=/jump=/jcnd= is the cost of that call or jump at its
# source instruction, not an execution count: skipped.
obj=$(readlink -f "$LUA")
awk -v obj="$obj" '
	/^ob=/ { inobj = (substr($0, 4) == obj); next }
	/^(calls|jump|jcnd)=/ { skipnext = 1; next }
	/^0x[0-9a-f]+ [0-9]+$/ {
		if (skipnext) { skipnext = 0; next }
		if (inobj) { ir[$1] += $2; seen = 1 }
		next
	}
	{ skipnext = 0 }
	END { for (a in ir) print a, ir[a]; if (!seen) exit 1 }' cg.out >cg.ir ||
	fail "no instruction of $obj in callgrind's output (ob= lines: $(grep '^ob=' cg.out | sort -u | tr '\n' ' '))"
# Names with the same address format as callgrind's (0x, no leading zeros);
# a name used by two static functions would sum both, on both sides alike.
nm "$LUA" | awk '$2 ~ /^[tTwW]$/ { a = $1; sub(/^0+/, "", a); print "0x" a, $3 }' >syms.txt
awk 'FILENAME == ARGV[1] { site[$1] = 1; next }
	FILENAME == ARGV[2] { ir[$1] = $2; next }
	($2 in site) { n[$2] += ($1 in ir) ? ir[$1] : 0; has[$2] = 1 }
	END { for (f in site) print f, (f in has) ? n[f] : "no-symbol" }' sites.txt cg.ir syms.txt | sort >v.txt

nfunc=$(wc -l <u.txt)
nent=$(awk '$2 > 0' u.txt | wc -l)
ndiff=$(join -a 1 -a 2 -e missing -o 0,1.2,2.2 u.txt v.txt | awk '$2 != $3' | tee diff.txt | wc -l)
if [ "$ndiff" != 0 ]; then
	fail "utrace and callgrind entry counts differ for $ndiff functions (function utrace callgrind):"
	head -n 40 diff.txt
fi
[ "$nev" -gt 10000 ] || fail "only $nev events: the workload did not run as expected"
say "lua5.4 $REAL_VERSION: $nfunc functions compared ($nent entered), $nev events, $ndiff differ from callgrind's entry counts"
finish
