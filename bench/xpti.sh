#!/usr/bin/env bash
# XPTI framework benchmark: xpti-bench through the static proxy, with the real dispatcher and
# a real (null) subscriber loaded from XPTI_SUBSCRIBERS, 10,000 trace points each visited 10
# times, serial and 1/2/4 threads, median of 7 runs. Ends with one summary line:
#   xpti-bench: notify_ns=.. composite_ns=.. lookup_ns=.. create_ns=.. eps_1pct_10ns=.. threads4_notify_ns=..
# Goals (DESIGN.md §7): notify <= 5 ns, composite <= 20 ns, string lookup <= 15 ns on one
# thread; notify with 4 threads within 1.5x of one thread.
set -euo pipefail
build=$(cd "${1:-build}" && pwd)
bin=$build/bin/xpti-bench
lib=$build/lib
for f in "$bin" "$lib/libxptifw.so" "$lib/libxpti_bench_subscriber.so"; do
	if [ ! -e "$f" ]; then
		echo "xpti-bench: '$f' is missing; build first (make build)" >&2
		exit 1
	fi
done
XPTI_TRACE_ENABLE=1 \
XPTI_FRAMEWORK_DISPATCHER=$lib/libxptifw.so \
XPTI_SUBSCRIBERS=$lib/libxpti_bench_subscriber.so \
	"$bin" --type performance --trace-points 10000 --test-id 1,2 --num-threads 0,1,2,4 \
	--tp-frequency 10 --overhead 1 --repeat 7 --summary
