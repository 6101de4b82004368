#!/bin/bash
# dlopen in every form a program uses: a relative path (also after the
# program changed directory), a bare name found through the program's
# RUNPATH, through a relative LD_LIBRARY_PATH, "$ORIGIN/...", RTLD_LAZY,
# RTLD_NOW|RTLD_GLOBAL, a library opened twice and closed once, a library
# opened by another dlopen'ed library (a bare name found through that
# library's own RUNPATH).  The program loads and runs each as it does
# untraced, and the libraries' functions are traced each time.
. "$(dirname "$0")/../lib/common.sh"

one() {
	local s=$1 d=d.dat plug
	plug=$(prog libtplug "$s").so
	mkdir -p p ld lib2
	cp "$plug" p/libtplugr.so
	cp "$plug" ld/libtplugl.so
	cp "$plug" lib2/libtplug2.so
	cp "$(prog libtopen "$s").so" lib2/
	# libtopen first and kept open: one table names the addresses of the
	# whole run, so a library must not come where one with other symbols was.
	local acts=(
		"bylib:$PWD/lib2/libtopen.$s.so:libtplug2.so"
		"now:./p/libtplugr.so"
		"lazy:./p/libtplugr.so"
		"now:libtplug.$s.so"
		"global:libtplug.$s.so"
		"now:\$ORIGIN/libtplug.$s.so"
		"now:libtplugl.so"
		"twice:$plug"
		"keep:./p/libtplugr.so"
		"cd:/"
		"now:$plug"
		"call"
	)
	# untraced, as a reference
	LD_LIBRARY_PATH=ld "$(prog dlforms "$s")" "${acts[@]}" >ref.out 2>ref.err ||
		fail "$s: untraced run failed: $(cat ref.err)"
	LD_LIBRARY_PATH=ld record "$d" -- "$(prog dlforms "$s")" "${acts[@]}" ||
		fail "$s: record exited $?: $(cat "$d.err")"
	expect "$s stdout" "$d.out" <<EOF
bylib:$PWD/lib2/libtopen.$s.so:libtplug2.so = 6
now:./p/libtplugr.so = 4
lazy:./p/libtplugr.so = 4
now:libtplug.$s.so = 4
global:libtplug.$s.so = 4
now:\$ORIGIN/libtplug.$s.so = 4
now:libtplugl.so = 4
twice:$plug = 4
keep:./p/libtplugr.so = 4
cd:/ = 0
now:$plug = 4
call = 4
EOF
	expect "$s same output as untraced" "$d.out" <ref.out
	# The libraries' functions, in order, with their callers.
	report "$d" | funcs | grep -E '^(plug|topen)_' >f.txt
	{
		printf 'topen_run <-df_call\nplug_work <-topen_run\nplug_hello <-plug_work\n'
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			printf 'plug_work <-df_call\nplug_hello <-plug_work\n'
		done
	} >want.txt
	expect "$s libraries' functions" f.txt <want.txt
	report "$d" | count_funcs | grep -vE '^(plug|topen)_' >c.txt
	expect "$s program's functions" c.txt <<'EOF'
action 12
by_lib 1
df_call 11
df_open 11
main 1
open_call 9
EOF
	no_crash "$d.err" "$d.rerr"
}

for_styles one
finish
