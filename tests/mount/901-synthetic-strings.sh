#!/bin/bash
# String fields of synthetic events (issue 13, item 5): "char NAME[]" and
# "char NAME[N]" in synthetic_events, filled by onmatch() from a string
# variable (`filenamevar=filename`, the kernel's self-test
# trigger-synthetic-event-dynstring.tc, on a traced program's real exec
# and exit) or from a string field of the event (a USDT probe's string
# argument, tests/progs/usdt_str.c); listed, formatted and printed as the
# kernel does (`filename=TEXT`, unquoted), a hist keyed on the string, and
# onmax().save() of a string field printed as the kernel prints one.
. "$(dirname "$0")/mount.lib"

UTRACE_USDT_DIR=$UT_TESTS/usdt
export UTRACE_USDT_DIR
do_mount
cd "$MNT" || exit 1
P=$(prog usdt_str gcc-pfe)
run_prog() { (cd "$TOP" && LD_PRELOAD=$UT_BUILD/libutrace.so "$P" "$1" >/dev/null); }
E=events/synthetic/ping_test_latency

expect_eq "char filename[]" OK "$(w synthetic_events 'ping_test_latency u64 lat; char filename[]')"
expect_eq "char w[16]" OK "$(a synthetic_events 'wordev char w[16]; char name[]; int n')"
expect "listed as the kernel lists them" synthetic_events <<'EOF2'
ping_test_latency	u64 lat; char[] filename
wordev	char[16] w; char[] name; int n
EOF2
expect_eq "an int array is no type" EINVAL "$(a synthetic_events 'bad int x[4]')"
expect_eq "char[300]: over 256" EINVAL "$(a synthetic_events 'bad char x[300]')"
grep -E 'field:.*(lat|filename);' $E/format >"$TOP/fmt.txt"
expect "format: the string as the kernel's synthetic events declare a dynamic one" "$TOP/fmt.txt" <<'EOF2'
	field:u64 lat;	offset:8;	size:8;	signed:0;
	field:__data_loc char[] filename;	offset:16;	size:8;	signed:1;
EOF2

expect_eq "exec: the filename in a string variable" OK \
	"$(w events/sched/sched_process_exec/trigger 'hist:key=pid:filenamevar=filename:ts0=common_timestamp.usecs')"
expect_eq "exit: onmatch with the string variable, a string filter" OK \
	"$(w events/sched/sched_process_exit/trigger 'hist:key=pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_process_exec).ping_test_latency($lat,$filenamevar) if comm == "usdt_str.gcc-pf"')"
expect_eq "a param no trigger defines" EINVAL \
	"$(a events/sched/sched_process_exit/trigger 'hist:key=pid:onmatch(sched.sched_process_exec).ping_test_latency($nope,$filenamevar)')"
expect_eq "a hist keyed on the synthetic string" OK \
	"$(w $E/trigger 'hist:keys=filename,lat:sort=filename,lat')"
expect_eq "enable" OK "$(w $E/enable 1)"
run_prog 1
run_prog 1
grep '^{' $E/hist | sed -E 's/lat: +[0-9]+/lat: N/' >"$TOP/h.txt"
printf '{ filename: %-50s, lat: N } hitcount:          1\n' "$P" "$P" >"$TOP/h.exp"
expect "the hist of the generated events, keyed on the filename" "$TOP/h.txt" <"$TOP/h.exp"
grep -o 'ping_test_latency: .*' trace | sed -E 's/lat=[0-9]+/lat=N/' >"$TOP/t.txt"
printf 'ping_test_latency: lat=N filename=%s\n' "$P" "$P" >"$TOP/t.exp"
expect "the events in the trace: the string bare, as the kernel prints it" "$TOP/t.txt" <"$TOP/t.exp"
expect_eq "disable" OK "$(w $E/enable 0)"

W=events/synthetic/wordev
expect_eq "word: the word in a variable" OK "$(w events/utest_str/word/trigger 'hist:keys=common_pid:wv=word')"
expect_eq "a number for a string field" EINVAL \
	"$(w events/utest_str/two/trigger 'hist:keys=common_pid:onmatch(utest_str.word).wordev(n,$wv,n)')"
expect_eq "a string for a number field" EINVAL \
	"$(w events/utest_str/two/trigger 'hist:keys=common_pid:onmatch(utest_str.word).wordev(good,$wv,good)')"
expect_eq "the kernel's message" 2 "$(grep -c "error: Param type doesn't match synthetic event field type" error_log)"
expect_eq "two: wordev from a string field, the variable and a number" OK \
	"$(w events/utest_str/two/trigger 'hist:keys=common_pid:onmatch(utest_str.word).wordev(good,$wv,n)')"
expect_eq "a max saving a string field" OK \
	"$(a events/utest_str/word/trigger 'hist:keys=len:m=len:onmax($m).save(word,len)')"
expect_eq "enable wordev" OK "$(w $W/enable 1)"
echo >trace
run_prog 5
grep -o 'wordev: .*' trace >"$TOP/w.txt"
expect "char[16] and char[] from a field and a variable" "$TOP/w.txt" <<'EOF2'
wordev: w=parse_args name=parse_args n=0
wordev: w=parse_line name=parse_line n=1
wordev: w=main_loop name=main_loop n=2
wordev: w=cleanup name=cleanup n=3
wordev: w=parse_args name=parse_args n=4
EOF2
sed -n '/onmax/,/^Totals/p' events/utest_str/word/hist | grep -A1 '^{' >"$TOP/s.txt"
printf '{ len: %10s } hitcount: %10s\n\tmax: %10s  word: %-32s  len: %10s\n' \
	7 1 7 cleanup 7 9 1 9 main_loop 9 10 3 10 parse_args 10 >"$TOP/s.exp"
expect "the string saved with the max, as the kernel prints one" "$TOP/s.txt" <"$TOP/s.exp"
alive
finish
