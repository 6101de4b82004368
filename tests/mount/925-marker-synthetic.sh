#!/bin/bash
# Hist variables and onmatch() on trace_marker's event (issue 13, the
# kernel's self-test trigger-trace-marker-synthetic.tc): the mount, which
# runs ftrace:print's triggers as it writes the marker (tracefs/marker_trig.c),
# keeps the variables per entry (key) and runs onmatch() (marker_vars.c):
# the "end" marker's trigger reads $ts0, set for the same common_pid by the
# "start" marker's trigger, and consumes it; the synthetic event `latency`
# is then generated: recorded into the scope's trace (it is enabled; its
# filter judges the record only) and its own hist trigger counts it in a
# table the mount keeps, shown by its hist file.  At the top level and
# under processes/PID/.
. "$(dirname "$0")/mount.lib"

do_mount
start_server s
P=$(pid_of s)
cd "$MNT" || exit 1

# the print hist (its variable listed in the trigger info), the synthetic
# hist and the events of the trace, under directory $1 ("" the top level)
check_scope() {
	local d=$1 what=$2
	sed -E -e "s/common_pid: *$$ /common_pid: SHELL /" -e 's/lat: *[0-9]+ /lat: N /' \
		${d}events/ftrace/print/hist >"$TOP/print.$what"
	expect "$what: ftrace:print's hist, one entry per trigger" "$TOP/print.$what" <<'EOF2'
# event histogram
#
# trigger info: hist:keys=common_pid:vals=hitcount:lat=common_timestamp.usecs-$ts0:sort=hitcount:size=2048:clock=global:onmatch(ftrace.print).latency($lat) if buf == "end" [active]
#

{ common_pid: SHELL } hitcount:          1

Totals:
    Hits: 1
    Entries: 1
    Dropped: 0


# event histogram
#
# trigger info: hist:keys=common_pid:vals=hitcount:ts0=common_timestamp.usecs:sort=hitcount:size=2048:clock=global if buf == "start" [active]
#

{ common_pid: SHELL } hitcount:          1

Totals:
    Hits: 1
    Entries: 1
    Dropped: 0
EOF2
	sed -E -e "s/common_pid: *$$, /common_pid: SHELL, /" -e 's/lat: *[0-9]+ /lat: N /' \
		${d}events/synthetic/latency/hist >"$TOP/synth.$what"
	expect "$what: the synthetic event's hist" "$TOP/synth.$what" <<'EOF2'
# event histogram
#
# trigger info: hist:keys=common_pid,lat:vals=hitcount:sort=lat:size=2048 [active]
#

{ common_pid: SHELL, lat: N } hitcount:          1

Totals:
    Hits: 1
    Entries: 1
    Dropped: 0
EOF2
	# (the writer: this shell, whatever its name)
	events <${d}trace | sed -E "s/^ *[^ ]+-$$ +\[[0-9]+\]/SHELL [<CPU>]/" | mask |
		sed -E 's/lat=[0-9]+$/lat=N/' >"$TOP/trace.$what"
	expect "$what: the markers, then the synthetic event" "$TOP/trace.$what" <<'EOF2'
SHELL [<CPU>] ..... <TS>: tracing_mark_write: start
SHELL [<CPU>] ..... <TS>: tracing_mark_write: end
SHELL [<CPU>] ..... <TS>: latency: lat=N
EOF2
	# common_timestamp.usecs is the marker's time as trace has it, in us
	# (truncated; trace prints them rounded, as the kernel's): lat is the
	# difference of the markers' printed times, give or take that rounding
	expect_eq "$what: lat is end - start in us" ok "$(events <${d}trace | awk '
		/tracing_mark_write: start/ { s = $4 } /tracing_mark_write: end/ { e = $4 }
		/latency: lat=/ { sub(".*lat=", ""); lat = $0 }
		END { sub(":", "", s); sub(":", "", e); split(s, a, "."); split(e, b, ".")
			d = (b[1] - a[1]) * 1000000 + (b[2] - a[2]) - lat
			print (d >= -1 && d <= 1) ? "ok" : "lat " lat ", markers " s " " e }')"
}

# the self-test's steps, in directory $1, with the synthetic event enabled
run_case() {
	local d=$1
	expect_eq "${d:-top}: start trigger" OK \
		"$(w ${d}events/ftrace/print/trigger 'hist:keys=common_pid:ts0=common_timestamp.usecs if buf == "start"')"
	expect_eq "${d:-top}: end trigger" OK \
		"$(a ${d}events/ftrace/print/trigger 'hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(ftrace.print).latency($lat) if buf == "end"')"
	expect_eq "${d:-top}: latency hist" OK \
		"$(w ${d}events/synthetic/latency/trigger 'hist:keys=common_pid,lat:sort=lat')"
	echo 1 >${d}events/synthetic/latency/enable
	echo -n start >${d}trace_marker
	echo -n end >${d}trace_marker
}

expect_eq "synthetic event" OK "$(w synthetic_events 'latency u64 lat')"
run_case ""
check_scope "" top
# $ts0 was consumed: another "end" finds none, is dropped (not counted) and generates nothing
echo -n end >trace_marker
expect_eq "end again: not counted" "$(printf '    Hits: 1\n    Hits: 1')" "$(grep Hits: events/ftrace/print/hist)"
expect_eq "end again: no latency" "    Hits: 1" "$(grep Hits: events/synthetic/latency/hist)"
expect_eq "end again: recorded, no latency event" "2 1" \
	"$(grep -c 'tracing_mark_write: end' trace) $(grep -c 'latency: lat=' trace)"
# its filter judges the record only: the hist counts what it discards (the kernel's)
echo 'lat > 100000000' >events/synthetic/latency/filter
echo -n start >trace_marker
echo -n end >trace_marker
expect_eq "filtered: counted" "    Hits: 2" "$(grep Hits: events/synthetic/latency/hist)"
expect_eq "filtered: not recorded" 1 "$(grep -c 'latency: lat=' trace)"
echo 0 >events/synthetic/latency/filter
echo -n start >trace_marker
echo -n end >trace_marker
expect_eq "no filter: recorded" 2 "$(grep -c 'latency: lat=' trace)"
expect_eq "remove the top level's" OK "$(a events/synthetic/latency/trigger '!hist:keys=common_pid,lat:sort=lat')"
expect_eq "" OK "$(a events/ftrace/print/trigger '!hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(ftrace.print).latency($lat) if buf == "end"')"
expect_eq "" OK "$(a events/ftrace/print/trigger '!hist:keys=common_pid:ts0=common_timestamp.usecs if buf == "start"')"
echo 0 >events/synthetic/latency/enable

# a process's directory: its own triggers, the markers in its trace
run_case processes/$P/
check_scope processes/$P/ process
expect_eq "the top level's tables stay empty" "" "$(cat events/synthetic/latency/hist)"
finish
