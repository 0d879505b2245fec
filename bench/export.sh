#!/usr/bin/env bash
# Export and view benchmark: records annot_prog single N (N regions + N
# counter samples on one thread), then times `hetrace view` and `hetrace
# export` to each format on that trace, with `hetrace report` on the same
# trace as the anchor (ratio = time / report's time, which the exporters'
# container changes do not touch). Medians of RUNS runs. Not pass/fail.
# With a second build directory OTHER, its hetrace runs the same commands on
# the same trace, interleaved with this build's, and each line gives both
# medians and this/other (below 1: this build is faster).
#   bench/export.sh BUILD [OTHER]
# EXPORT_BENCH_N (default 3000000) sets N; EXPORT_BENCH_RUNS (default 3) the runs.
# Ends with one line:
#   export-bench: events=<n> report_s=<s> view_s=<s> perfetto_s=<s> chrome_s=<s> ctf_s=<s> otf2_s=<s>
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
other=
[ -n "${2:-}" ] && other=$(cd "$2" && pwd)
n=${EXPORT_BENCH_N:-3000000}
runs=${EXPORT_BENCH_RUNS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetrace-export-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# the trace (~40 bytes an event) and the largest output (Chrome JSON, ~250)
need=$((n * 3 * 300 / 1024 / 1024 + 512))
avail=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt "$need" ]; then
	echo "export-bench: skipped: needs ~${need} MB free in $tmp, has ${avail} MB"
	exit 0
fi

echo "recording annot_prog single $n ..."
"$build/bin/hetrace" record -q -o "$tmp/t" -- "$build/bin/annot_prog" single "$n" >/dev/null || exit 1
events=$("$build/bin/hetrace" info "$tmp/t" | awk '/^total/ { for (i = 1; i < NF; i++) if ($(i + 1) ~ /^events/) print $i }')
echo "trace: $events events, $(du -sm "$tmp/t" | cut -f1) MB"

# one_run HETRACE WHAT: CPU seconds of one command (WHAT: report, view or a format)
one_run() {
	local args
	case $2 in
	report) args=(report "$tmp/t") ;;
	view) args=(view "$tmp/t" -o "$tmp/out" --force) ;;
	*) args=(export "$tmp/t" --format "$2" -o "$tmp/out" --force) ;;
	esac
	/usr/bin/time -f "%U %S" -o "$tmp/time" "$1" "${args[@]}" >/dev/null 2>"$tmp/err" ||
		{ echo "hetrace ${args[0]} $2 failed: $(tail -2 "$tmp/err")" >&2; exit 1; }
	rm -rf "$tmp/out"
	awk '{ printf "%.2f\n", $1 + $2 }' "$tmp/time"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

summary="export-bench: events=$events"
if [ -n "$other" ]; then
	printf '%-10s %14s %14s %11s %15s\n' what "this (CPU s)" "other (CPU s)" this/other "ratio to report"
else
	printf '%-10s %14s %15s\n' what "median (CPU s)" "ratio to report"
fi
for what in report view perfetto chrome ctf otf2; do
	a=() b=()
	for _ in $(seq "$runs"); do
		a+=("$(one_run "$build/bin/hetrace" "$what")") || exit 1
		[ -n "$other" ] && { b+=("$(one_run "$other/bin/hetrace" "$what")") || exit 1; }
	done
	ma=$(printf '%s\n' "${a[@]}" | median)
	[ "$what" = report ] && anchor=$ma
	ratio=$(awk -v x="$ma" -v r="$anchor" 'BEGIN { printf "%.2f", (r > 0 ? x / r : 0) }')
	if [ -n "$other" ]; then
		mb=$(printf '%s\n' "${b[@]}" | median)
		printf '%-10s %14s %14s %11s %15s\n' "$what" "$ma" "$mb" \
			"$(awk -v x="$ma" -v y="$mb" 'BEGIN { printf "%.2f", (y > 0 ? x / y : 0) }')" "$ratio"
	else
		printf '%-10s %14s %15s\n' "$what" "$ma" "$ratio"
	fi
	summary="$summary ${what}_s=$ma"
done
echo "$summary"
