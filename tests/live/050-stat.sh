#!/bin/bash
# utrace stat: the function profiler of a running process, switched on live
# (function_profile_enabled), its trace_stat/function table with true hits.
. "$(dirname "$0")/../lib/common.sh"
. "$UT_TESTS/lib/live.sh"

one() {
	local s=$1
	rm -rf run
	server_start "$s"
	check "$s start --profile" "$UTRACE" start -P "$SERVER_PID" -p nop --profile -l 'parse_*'
	server_cmd "run 5"
	"$UTRACE" stat -P "$SERVER_PID" >stat.txt 2>stat.err || fail "$s stat: $(cat stat.err)"
	sed -n 1,2p stat.txt >head.txt
	expect "$s stat header" head.txt <<'EOF'
  Function                               Hit    Time            Avg             s^2
  --------                               ---    ----            ---             ---
EOF
	awk 'NR > 2 && NF >= 2 {print $1, $2}' stat.txt | sort >hits.txt
	expect "$s stat hits" hits.txt <<'EOF'
parse_header 10
parse_noise 5
parse_request 5
EOF
	server_stop
}

for_styles one
finish
