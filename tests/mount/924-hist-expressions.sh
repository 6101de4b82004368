#!/bin/bash
# hist variable expressions (issue 13; histogram.rst, "expressions"): a
# variable of * and / operands is evaluated in the traced process with the
# kernel's precedence (* and / before + and -, left to right: 7+arg1*3/2 on
# utest:pair is 7+((arg1*3)/2), its maximum 11 at arg1=3), a division by a
# variable that is 0 at run time is -1 (the kernel's hist_field_div), the
# trigger lists the expression as written and a constant one folded
# (x=16-8-4-2 is x=2), and error_log points at the kernel's spot.
. "$(dirname "$0")/mount.lib"

do_mount
start_server u "$(prog usdt gcc-pfe)" -i
U=$(pid_of u)
cd "$MNT" || exit 1

expect_eq "README: the kernel's expression line" 1 \
	"$(grep -c '<var1>=<field|var_ref|numeric_literal>' README)"
expect_eq "pair's trigger" OK \
	"$(w events/utest/pair/trigger 'hist:keys=common_pid:v=7+arg1*3/2:onmax($v).save(arg1)')"
expect_eq "konst's trigger: a division by a variable that is 0" OK \
	"$(w events/utest/konst/trigger 'hist:keys=common_pid:d=arg1-arg1,z=arg1/$d:onmax($z).save(arg1)')"
expect_eq "listed as written" \
	'hist:keys=common_pid:vals=hitcount:v=7+arg1*3/2:sort=hitcount:size=2048:onmax($v).save(arg1) [active]' \
	"$(cat events/utest/pair/trigger)"
expect_eq "enable pair and konst" OK "$(w set_event 'utest:pair utest:konst')"
run_req u 4
expect_eq "pair: max of 7+arg1*3/2 over arg1 0..3" \
	'	max:         11  arg1:          3' "$(grep 'max:' events/utest/pair/hist)"
expect_eq "konst: 42/0 is -1" \
	'	max: 18446744073709551615  arg1:         42' "$(grep 'max:' events/utest/konst/hist)"

expect_eq "a constant expression" OK \
	"$(w events/utest/pair/trigger 'hist:keys=arg2:x=16-8-4-2,y=4+6/3*2')"
expect_eq "folded in the listing" \
	'hist:keys=arg2:vals=hitcount:x=2,y=8:sort=hitcount:size=2048 [active]' \
	"$(grep 'keys=arg2' events/utest/pair/trigger)"

echo >error_log
expect_eq "division by zero refused" EINVAL \
	"$(a events/utest/pair/trigger 'hist:keys=arg2:x=arg1*3/0')"
sed 's/^\[[ 0-9.]*\] //' error_log >"$TOP/err.txt"
expect "error_log: the caret under the 0" "$TOP/err.txt" <<'EOF2'
hist:utest:pair: error: Division by zero
  Command: hist:keys=arg2:x=arg1*3/0
                                   ^
EOF2
finish
