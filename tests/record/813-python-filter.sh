#!/bin/bash
# python3.11's function__entry with a string filter (issue 13 items 1 and
# 4): share/usdt/python.usdt names its arguments (filename and funcname
# strings, lineno), `record -e python:function__entry -f 'funcname ==
# "foo"'` records exactly the script's calls of foo, with the file and the
# line, judged in the interpreter.  Python 3.11 fires the probe on its
# tracing path only (a profile function set), so the script sets one.
. "$(dirname "$0")/../lib/common.sh"

py=/usr/bin/python3.11
[ -x "$py" ] || skip "no $py"
"$UTRACE" list -e "$py" | has '^python:function__entry ' || skip "$py has no function__entry probe"
cat >s.py <<'EOF'
import sys
sys.setprofile(lambda *a: None)
def foo(x): return x
def food(x): return x
def bar(x): return x
for i in range(7): foo(i)
for i in range(3): bar(i)
for i in range(2): food(i)
list(map(foo, range(4)))
EOF
record f.dat -e python:function__entry -f 'funcname == "foo"' -- "$py" -S s.py ||
	fail "record exited $?: $(cat f.dat.err)"
report f.dat | funcs | sort | uniq -c | sed -E 's/^ +//; s#filename="[^"]*/s.py"#filename="s.py"#' >f.txt
expect "foo's 11 calls, nothing else" f.txt <<'EOF'
11 function__entry: filename="s.py" funcname="foo" lineno=3
EOF
record g.dat -e python:function__entry -f 'funcname ~ "fo*" && lineno >= 4' -- "$py" -S s.py ||
	fail "record exited $?: $(cat g.dat.err)"
report g.dat | funcs | sed -E 's#filename="[^"]*/s.py"#filename="s.py"#' | sort | uniq -c | sed -E 's/^ +//' >g.txt
expect "food's 2 calls" g.txt <<'EOF'
2 function__entry: filename="s.py" funcname="food" lineno=4
EOF
finish
