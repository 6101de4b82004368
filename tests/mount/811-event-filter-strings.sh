#!/bin/bash
# String arguments in the mount (issue 13 items 1 and 4): an event whose
# description (tests/usdt/utest.usdt) has strings shows them in its format
# as the kernel's probe events do (__data_loc char[], size 4, printed with
# __get_str), the trace shows name="text" and (fault) for a pointer that
# cannot be read, and the event's filter compares the text.
. "$(dirname "$0")/mount.lib"

UTRACE_USDT_DIR=$UT_TESTS/usdt
export UTRACE_USDT_DIR
do_mount
mkfifo "$TOP/u.in"
LD_PRELOAD=$UT_BUILD/libutrace.so "$(prog usdt_str gcc-pfe)" -i <"$TOP/u.in" >"$TOP/u.out" 2>"$TOP/u.err" &
P=$!
_server_pids+=("$P")
exec {_fd_u}>"$TOP/u.in"
send u ping
wait_for u '^pong$'
cd "$MNT" || exit 1

sed -e '/^ID: /d' events/utest_str/two/format >"$TOP/format.txt"
expect "a format with strings" "$TOP/format.txt" <<'EOF2'
name: two
format:
	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
	field:unsigned char common_flags;	offset:2;	size:1;	signed:0;
	field:unsigned char common_preempt_count;	offset:3;	size:1;	signed:0;
	field:int common_pid;	offset:4;	size:4;	signed:1;

	field:__data_loc char[] good;	offset:8;	size:4;	signed:1;
	field:__data_loc char[] bad;	offset:16;	size:4;	signed:1;
	field:s32 n;	offset:24;	size:4;	signed:1;

print fmt: "good=\"%s\" bad=\"%s\" n=%d", __get_str(good), __get_str(bad), REC->n
EOF2
expect_eq "enable" OK "$(w set_event utest_str:two)"
expect_eq "a string filter" OK "$(w events/utest_str/two/filter 'good ~ "*_l*" || bad == "edge"')"
echo >trace
run_req u 4
grep -v '^#' trace | sed -E 's/^.*[0-9]\.[0-9]{6}: //' >"$TOP/t.txt"
expect "judged on the text" "$TOP/t.txt" <<'EOF2'
two: good="parse_line" bad=(fault) n=1
two: good="main_loop" bad="edge" n=2
EOF2
expect_eq "a number for a string" EINVAL "$(w events/utest_str/two/filter 'bad > 1')"
expect "the report" events/utest_str/two/filter <<'EOF2'
bad > 1
       ^
parse_error: Expecting string field

EOF2
alive
finish
