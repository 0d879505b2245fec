#!/usr/bin/env bash
# SQLite export benchmark: records the analysis benchmark's trace (annot_prog
# single N: N regions + N counters, about 100 M events for the default N),
# times `hetrace export --format sqlite` on it (median of RUNS), and, as the
# anchor, SQLite itself inserting the same number of rows into the same
# tables from a recursive CTE in the sqlite3 CLI (no trace to read, no API
# calls per row: what the library costs on this machine). Not pass/fail.
# Wall times are medians; CPU times (user + sys, all threads) say what the
# work costs when other jobs share the machine. Ends with one line:
#   sqlite-bench: events=<n> rows=<n> export_s=<s> rows_per_s=<M/s> export_cpu_s=<s> sqlite_only_s=<s> sqlite_only_rows_per_s=<M/s> ratio=<export/sqlite_only rows/s> db_mb=<mb> peak_rss_mb=<mb>
# SQLITE_BENCH_N (default 33333333) sets N; SQLITE_BENCH_RUNS (default 3) the
# export runs; SQLITE_BENCH_TRACE=DIR exports an existing trace instead.
set -uo pipefail
build=$(cd "${1:-build}" && pwd)
n=${SQLITE_BENCH_N:-33333333}
runs=${SQLITE_BENCH_RUNS:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hetrace-sqlite-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v sqlite3 >/dev/null || { echo "sqlite-bench: skipped: no sqlite3 CLI (Debian: sqlite3)"; exit 0; }
need=$((n * 100 / 1024 / 1024 + 512)) # trace ~40 B per region + counter, database ~60
avail=$(df -Pm "$tmp" | awk 'NR == 2 { print $4 }')
if [ "$avail" -lt "$need" ]; then
	echo "sqlite-bench: skipped: needs ~${need} MB free in $tmp, has ${avail} MB"
	exit 0
fi

trace=${SQLITE_BENCH_TRACE:-}
if [ -z "$trace" ]; then
	echo "recording annot_prog single $n ..."
	trace=$tmp/t
	"$build/bin/hetrace" record -q -o "$trace" -- "$build/bin/annot_prog" single "$n" >/dev/null || exit 1
fi
events=$("$build/bin/hetrace" info "$trace" | awk '/^total/ { print $(NF - 3) }')
echo "trace: $events events, $(du -sm "$trace" | cut -f1) MB"

times=()
cpus=()
rss=0
for _ in $(seq "$runs"); do
	rm -f "$tmp/db.sqlite"
	/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$build/bin/hetrace" export "$trace" --format sqlite \
		-o "$tmp/db.sqlite" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
	read -r s u y kb <"$tmp/time"
	times+=("$s")
	cpus+=("$(awk -v u="$u" -v y="$y" 'BEGIN { print u + y }')")
	[ "$kb" -gt "$rss" ] && rss=$kb
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
export_s=$(printf '%s\n' "${times[@]}" | median)
export_cpu=$(printf '%s\n' "${cpus[@]}" | median)
rows=0
for t in $(sqlite3 "$tmp/db.sqlite" "SELECT name FROM sqlite_master WHERE type = 'table'"); do
	rows=$((rows + $(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM $t")))
done
db_mb=$(du -m "$tmp/db.sqlite" | cut -f1)
regions=$(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM regions")
counters=$(sqlite3 "$tmp/db.sqlite" "SELECT count(*) FROM counters")
sqlite3 "$tmp/db.sqlite" ".schema regions" ".schema counters" >"$tmp/schema.sql"

# the anchor: the same tables filled by SQLite alone, same pragmas, one transaction
rm -f "$tmp/anchor.sqlite"
{
	echo "PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE;"
	echo "PRAGMA cache_size=-8192; BEGIN;"
	cat "$tmp/schema.sql"
	echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT $regions)"
	echo "INSERT INTO regions SELECT x, 1, 3, 1000000000000 + 30 * x, 1000000000000 + 30 * x + 19, 0 FROM c;"
	echo "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT $counters)"
	echo "INSERT INTO counters SELECT x, 1, 4, 1000000000000 + 30 * x + 10, x - 1 FROM c;"
	echo "COMMIT;"
} >"$tmp/anchor.sql"
/usr/bin/time -f "%e %U %S" -o "$tmp/time" sqlite3 "$tmp/anchor.sqlite" <"$tmp/anchor.sql" >/dev/null || exit 1
read -r anchor_s u y <"$tmp/time"
anchor_cpu=$(awk -v u="$u" -v y="$y" 'BEGIN { print u + y }')

printf '%-44s %10s %10s\n' "" "wall" "CPU"
printf '%-44s %10s %10s\n' "hetrace export --format sqlite (median of $runs)" "$export_s s" "$export_cpu s"
printf '%-44s %10s\n' "  rows written (all tables)" "$rows"
printf '%-44s %10s %10s\n' "sqlite3 CLI: the same regions + counters rows" "$anchor_s s" "$anchor_cpu s"
printf '%-44s %10s\n' "database size" "$db_mb MB"
printf '%-44s %10s\n' "export peak RSS" "$((rss / 1024)) MB"
awk -v e="$events" -v r="$rows" -v s="$export_s" -v c="$export_cpu" -v a="$anchor_s" \
	-v ar="$((regions + counters))" -v d="$db_mb" -v m="$((rss / 1024))" 'BEGIN {
	x = r / s / 1e6; y = ar / a / 1e6
	printf "sqlite-bench: events=%d rows=%d export_s=%.2f rows_per_s=%.2fM export_cpu_s=%.2f sqlite_only_s=%.2f sqlite_only_rows_per_s=%.2fM ratio=%.2f db_mb=%d peak_rss_mb=%d\n",
		e, r, s, x, c, a, y, x / y, d, m }'
