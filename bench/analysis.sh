#!/usr/bin/env bash
# Analysis benchmark: records a synthetic trace of about 100 M events with the
# annotation API (annot_prog single N: N regions + N counters), then times
# `hetrace report` and babeltrace2's counter sink on the same trace, and the
# report's peak RSS. Not pass/fail. Ends with one line:
#   analysis-bench: events=<n> report_s=<s> report_meps=<M events/s> babeltrace2_s=<s> ratio=<bt2/report> peak_rss_mb=<mb>
# ANALYSIS_BENCH_N (default 33333333) sets N; ANALYSIS_BENCH_RUNS (default 3) the report runs.
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
n=${ANALYSIS_BENCH_N:-33333333}
runs=${ANALYSIS_BENCH_RUNS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetrace-analysis-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
need=$((n * 40 / 1024 / 1024 + 512))
avail=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt "$need" ]; then
	echo "analysis-bench: skipped: needs ~${need} MB free in $tmp, has ${avail} MB"
	exit 0
fi

echo "recording annot_prog single $n ..."
"$build/bin/hetrace" record -q -o "$tmp/t" -- "$build/bin/annot_prog" single "$n" >/dev/null || exit 1
events=$("$build/bin/hetrace" info "$tmp/t" | awk '/^total/ { print $(NF - 3) }')
size=$(du -sm "$tmp/t" | cut -f1)
echo "trace: $events events, $size MB"

times=()
rss=0
for _ in $(seq "$runs"); do
	/usr/bin/time -f "%e %M" -o "$tmp/time" "$build/bin/hetrace" report "$tmp/t" >/dev/null || exit 1
	read -r s kb <"$tmp/time"
	times+=("$s")
	[ "$kb" -gt "$rss" ] && rss=$kb
done
report_s=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')

bt2_s=NA
if command -v babeltrace2 >/dev/null; then
	# source.ctf.fs for every process directory (auto-discovery), counter sink
	if /usr/bin/time -f "%e" -o "$tmp/time" babeltrace2 "$tmp/t" -c sink.utils.counter \
		>"$tmp/bt2.out" 2>&1; then
		bt2_s=$(cat "$tmp/time")
	else
		echo "babeltrace2 failed: $(tail -2 "$tmp/bt2.out")"
	fi
	echo "babeltrace2 counter: $(grep -E 'Event messages' "$tmp/bt2.out" | tail -1 | xargs)"
	echo "(babeltrace2 -c src.ctf.fs -c sink.utils.counter over each process directory)"
fi

printf '%-34s %10s\n' "hetrace report (median of $runs)" "$report_s s"
printf '%-34s %10s\n' "babeltrace2 -c sink.utils.counter" "$bt2_s s"
printf '%-34s %10s\n' "hetrace report peak RSS" "$((rss / 1024)) MB"
awk -v e="$events" -v r="$report_s" -v b="$bt2_s" -v m="$((rss / 1024))" 'BEGIN {
	ratio = (b == "NA" || r == 0) ? "NA" : sprintf("%.1f", b / r)
	printf "analysis-bench: events=%d report_s=%.2f report_meps=%.1f babeltrace2_s=%s ratio=%s peak_rss_mb=%d\n",
		e, r, e / r / 1e6, b, ratio, m }'
