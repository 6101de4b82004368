#!/bin/bash
# bench/workloads/timeit.sh PROG ARGS...: runs PROG, then prints "inner_ns N",
# PROG's wall time from fork to exit as this shell sees it.  bench/run wraps
# the lua workload in it so that its *inner* time excludes the tracer's own
# start-up before the program and its write-out after it.
t0=$EPOCHREALTIME
"$@"
rc=$?
t1=$EPOCHREALTIME
echo "inner_ns $(( (10#${t1//[.,]/} - 10#${t0//[.,]/}) * 1000 ))"
exit $rc
