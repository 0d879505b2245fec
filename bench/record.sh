#!/usr/bin/env bash
# Recording benchmark (issue 2; goals in DESIGN.md §7). Same payload (a u32 id
# and an i64 value: HT_COUNTER, and an LTTng-UST tracepoint with two
# ctf_integer fields), same machine, one script: ns per event for hetrace
# disabled, hetrace enabled (recorded through `hetrace record`, the path users
# take) and LTTng-UST recorded by an active lttng session, 1 and 2 threads,
# medians of interleaved runs; bytes per event from the trace on disk; losses
# at 10 M events/s for 10 s on one thread with default buffers; resident
# memory of 200 live threads that write little. Prints a table and ends with
# one `record-bench:` line. Never pass/fail.
#
#   bash bench/record.sh BUILD_DIR          (make bench BENCH=record)
#
# Knobs (environment): RECORD_BENCH_RUNS (5), RECORD_BENCH_EVENTS (5000000,
# per thread per run), RECORD_BENCH_DISABLED_EVENTS (1e9), RECORD_BENCH_RATE
# (10000000 events/s), RECORD_BENCH_SECONDS (10), RECORD_BENCH_LTTNG_CHANNEL
# (lttng enable-channel options; big enough that LTTng discards nothing, so
# its cost is that of recording, not of dropping), TMPDIR (where the traces
# are written, /tmp by default: the file system matters, see the table).
set -euo pipefail

build=$(cd "${1:-build}" && pwd)
runs=${RECORD_BENCH_RUNS:-5}
events=${RECORD_BENCH_EVENTS:-5000000}
disabled_events=${RECORD_BENCH_DISABLED_EVENTS:-1000000000}
rate=${RECORD_BENCH_RATE:-10000000}
seconds=${RECORD_BENCH_SECONDS:-10}
lttng_channel=${RECORD_BENCH_LTTNG_CHANNEL:---subbuf-size=4M --num-subbuf=8}
warmup=1024 # WARMUP_EVENTS in record_bench.c: recorded too, not timed

hetrace=$build/bin/hetrace
prog=$build/bin/ht-bench-record
lprog=$build/bin/ht-bench-record-lttng

for f in "$hetrace" "$prog"; do
	if [ ! -x "$f" ]; then
		echo "record-bench: missing $f; build first (make build)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ht-record-bench.XXXXXX")
res=$tmp/results
mkdir "$res"
session=
sessiond_pid=

cleanup() {
	if [ -n "$session" ]; then
		lttng destroy "$session" >/dev/null 2>&1 || true
	fi
	if [ -n "$sessiond_pid" ]; then
		kill "$sessiond_pid" 2>/dev/null || true
		for _ in $(seq 50); do
			kill -0 "$sessiond_pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# field NAME: the value of NAME=VALUE in the `result` line on stdin.
field() {
	awk -v k="$1" '/^result /{for (i = 2; i <= NF; i++) {split($i, kv, "="); if (kv[1] == k) print kv[2]}}'
}

# median [COLUMN]: median of column COLUMN (default 1) of stdin, NA if none.
median() {
	awk -v c="${1:-1}" '$c != "NA" && $c != "" {v[n++] = $c}
		END {
			if (!n) { print "NA"; exit }
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
			m = n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2
			printf "%.3f\n", m
		}'
}

# The event and lost totals of `hetrace info DIR` (its `total ... lost` line).
info_totals() {
	"$hetrace" info "$1" | awk '/^total/ {
		for (i = 2; i <= NF; i++) {
			if ($i ~ /^events,?$/) ev = $(i - 1)
			if ($i == "lost") lost = $(i - 1)
		}
		print ev, lost }'
}

# run_plain NAME MODE EVENTS: the program alone, not recorded.
run_plain() {
	local out
	out=$(env -u HETRACE_DIR "$prog" --mode "$2" --events "$3")
	echo "$(field ns_per_event <<<"$out") $(field mevents_per_s <<<"$out")" >>"$res/$1"
}

# run_ht NAME MODE THREADS EVENTS [ARGS...]: recorded by `hetrace record`
# with default settings; appends "ns Mev/s bytes_per_event lost max_lag_us".
run_ht() {
	local name=$1 mode=$2 threads=$3 n=$4 dir=$tmp/ht out bytes totals
	shift 4
	out=$("$hetrace" record -q -o "$dir" -- "$prog" --mode "$mode" --threads "$threads" \
		--events "$n" "$@")
	bytes=$(du -sb "$dir" | cut -f1)
	totals=$(info_totals "$dir")
	rm -rf "$dir"
	echo "$(field ns_per_event <<<"$out") $(field mevents_per_s <<<"$out")" \
		"$(awk -v b="$bytes" -v e="${totals% *}" 'BEGIN {printf "%.3f", b / e}')" \
		"${totals#* }" "$(field max_lag_us <<<"$out")" >>"$res/$name"
}

# run_lttng NAME THREADS: a fresh session in $tmp records the tracepoint;
# appends "ns Mev/s bytes_per_event discarded".
run_lttng() {
	local name=$1 threads=$2 dir=$tmp/lttng out discarded bytes
	session=ht-record-bench-$$
	# shellcheck disable=SC2086 # the channel options are split on purpose
	{
		lttng create "$session" --output="$dir" &&
			lttng enable-channel --userspace --session="$session" $lttng_channel ch &&
			lttng enable-event --userspace --session="$session" --channel=ch ht_bench:value &&
			lttng start "$session"
	} >/dev/null
	out=$("$lprog" --mode lttng --threads "$threads" --events "$events")
	lttng stop "$session" >/dev/null 2>&1
	discarded=$(lttng list "$session" | awk '/Discarded events:/ {s += $3} END {print s + 0}')
	lttng destroy "$session" >/dev/null
	session=
	bytes=$(du -sb "$dir" | cut -f1)
	rm -rf "$dir"
	echo "$(field ns_per_event <<<"$out") $(field mevents_per_s <<<"$out")" \
		"$(awk -v b="$bytes" -v e="$((threads * (events + warmup) - discarded))" \
			'BEGIN {printf "%.3f", b / e}')" "$discarded" >>"$res/$name"
}

# ---- LTTng: tools, provider program, session daemon ----
lttng_ok=1
if ! command -v lttng >/dev/null || ! command -v lttng-sessiond >/dev/null; then
	echo "record-bench: lttng / lttng-sessiond not found (install lttng-tools" \
		"liblttng-ust-dev, or run 'make deps'); LTTng-UST is not measured"
	lttng_ok=0
elif [ ! -x "$lprog" ]; then
	echo "record-bench: $lprog was not built (liblttng-ust-dev missing at configure" \
		"time?); LTTng-UST is not measured"
	lttng_ok=0
elif ! lttng list >/dev/null 2>&1; then
	# Started here, so stopped at the end (by the pid it writes, never by name).
	pidfile=$HOME/.lttng/lttng-sessiond.pid
	[ "$(id -u)" -ne 0 ] || pidfile=/var/run/lttng/lttng-sessiond.pid
	if lttng-sessiond --daemonize; then
		for _ in $(seq 50); do
			lttng list >/dev/null 2>&1 && break
			sleep 0.1
		done
		pid=$(cat "$pidfile" 2>/dev/null || true)
		if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = lttng-sessiond ]; then
			sessiond_pid=$pid
			echo "record-bench: started lttng-sessiond (pid $pid); it is stopped at the end"
		fi
	fi
	if ! lttng list >/dev/null 2>&1; then
		echo "record-bench: could not start lttng-sessiond; LTTng-UST is not measured"
		lttng_ok=0
	fi
fi

# ---- interleaved rounds ----
echo "record-bench: $runs rounds, $events events per thread per run," \
	"$disabled_events for the disabled cost; trace in $tmp"
for r in $(seq "$runs"); do
	run_plain empty empty "$disabled_events"
	run_plain disabled counter "$disabled_events"
	run_ht counter1 counter 1 "$events"
	if [ "$lttng_ok" -eq 1 ]; then
		run_lttng lttng1 1
	fi
	run_ht counter2 counter 2 "$events"
	if [ "$lttng_ok" -eq 1 ]; then
		run_lttng lttng2 2
	fi
	# the program writing its own packets (no hand-off to record), for comparison
	HETRACE_RING=0 run_ht self1 counter 1 "$events"
	HETRACE_RING=0 run_ht self2 counter 2 "$events"
	run_ht region1 region 1 "$events"
	run_ht instant1 instant2 1 "$events"
	if [ "$lttng_ok" -eq 1 ]; then
		out=$("$lprog" --mode lttng --events "$disabled_events")
		field ns_per_event <<<"$out" >>"$res/lttng_off"
	fi
	echo "record-bench: round $r/$runs done"
done

# ---- 10 M events/s for 10 s, one thread, default buffers ----
need_kb=$((3 * 1024 * 1024))
free_kb=$(df -Pk "$tmp" | awk 'NR == 2 {print $4}')
rate_line="skipped"
lost=NA
if [ "$free_kb" -lt "$need_kb" ]; then
	rate_line="skipped: $((free_kb / 1024)) MiB free in $tmp, need 3 GiB"
	echo "record-bench: paced run $rate_line"
else
	run_ht paced counter 1 "$(awk -v r="$rate" -v s="$seconds" 'BEGIN {printf "%d", r * s}')" \
		--rate "$rate"
	read -r _ p_mev p_bytes lost p_lag <"$res/paced"
	rate_line="achieved $p_mev Mev/s, $p_bytes B/event, max lag ${p_lag} us, lost $lost"
fi

# ---- memory: many threads that write little, alive together ----
rss_threads=200
rss_run() { # rss_run plain|record|ring0: VmRSS in MiB of the program holding its threads
	local dir=$tmp/rss out
	local args=(--mode counter --threads "$rss_threads" --events 100 --rss)
	case $1 in
	plain) out=$(env -u HETRACE_DIR "$prog" "${args[@]}") ;;
	record) out=$("$hetrace" record -q -o "$dir" -- "$prog" "${args[@]}") ;;
	ring0) out=$(HETRACE_RING=0 "$hetrace" record -q -o "$dir" -- "$prog" "${args[@]}") ;;
	esac
	rm -rf "$dir"
	awk -v k="$(field rss_kb <<<"$out")" 'BEGIN {printf "%.1f", k / 1024}'
}
rss_line="untraced $(rss_run plain) MiB, recorded $(rss_run record) MiB,"
rss_line="$rss_line with HETRACE_RING=0 $(rss_run ring0) MiB"

# ---- table and summary ----
row() { # LABEL THREADS FILE: medians of ns, Mev/s, bytes; lost summed; "-" where none
	local f=$res/$3 ns=NA mev=NA b=NA l=NA
	if [ -s "$f" ]; then
		ns=$(median 1 <"$f")
		mev=$(median 2 <"$f")
		b=$(median 3 <"$f")
		l=$(awk '$4 != "" {s += $4; n++} END {print n ? s : "NA"}' "$f")
	fi
	printf '%-38s %7s %9s %9s %11s %9s\n' "$1" "$2" "${ns/NA/-}" "${mev/NA/-}" "${b/NA/-}" \
		"${l/NA/-}"
}

paste -d' ' "$res/disabled" "$res/empty" | awk '{print $1 - $3}' >"$res/macro"
ht_ns=$(median <"$res/counter1")
ht_mev1=$(median 2 <"$res/counter1")
ht_mev2=$(median 2 <"$res/counter2")
disabled_ns=$(median <"$res/macro")
bpe=$(median 3 <"$res/region1")
lttng_ns=NA
ratio=NA
if [ -s "$res/lttng1" ]; then
	lttng_ns=$(median <"$res/lttng1")
	ratio=$(awk -v l="$lttng_ns" -v h="$ht_ns" 'BEGIN {printf "%.2f", l / h}')
fi
speedup=$(awk -v a="$ht_mev2" -v b="$ht_mev1" 'BEGIN {printf "%.2f", a / b}')

echo
echo "Medians of $runs runs; ns/event = loop time / events per thread (CLOCK_MONOTONIC);"
echo "Mev/s = all threads together; bytes = trace on disk / events in it; lost = sum over runs."
printf '%-38s %7s %9s %9s %11s %9s\n' configuration threads ns/event Mev/s bytes/event lost
row "empty loop (baseline)" 1 empty
row "hetrace off: HT_COUNTER, not recorded" 1 disabled
printf '%-38s %7s %9s\n' "  = macro cost over the empty loop" 1 "$disabled_ns"
row "hetrace HT_COUNTER (id u32 + i64)" 1 counter1
row "hetrace HT_COUNTER (id u32 + i64)" 2 counter2
row "  same, HETRACE_RING=0 (app writes)" 1 self1
row "  same, HETRACE_RING=0 (app writes)" 2 self2
row "hetrace HT_REGION_BEGIN/END (id u32)" 1 region1
row "hetrace HT_INSTANT_ARGS (2 int args)" 1 instant1
row "lttng-ust tracepoint (u32 + i64)" 1 lttng1
row "lttng-ust tracepoint (u32 + i64)" 2 lttng2
row "lttng-ust tracepoint, no session" 1 lttng_off
echo "hetrace HT_COUNTER paced to $rate/s for ${seconds} s, 1 thread, default buffers: $rate_line"
echo "(LTTng channel: $lttng_channel, per-user buffers; its 'lost' column is discarded events)"
echo "resident memory, $rss_threads threads of 100 events each, all alive: $rss_line"
if [ -s "$res/lttng2" ]; then
	echo "2-thread throughput over 1 thread: hetrace ${speedup}x, lttng-ust" \
		"$(awk -v a="$(median 2 <"$res/lttng2")" -v b="$(median 2 <"$res/lttng1")" \
			'BEGIN {printf "%.2f", a / b}')x"
fi
echo "hetrace with HETRACE_RING=0: 2-thread throughput over 1 thread" \
	"$(awk -v a="$(median 2 <"$res/self2")" -v b="$(median 2 <"$res/self1")" \
		'BEGIN {printf "%.2f", a / b}')x (with the hand-off, one thread already uses a" \
	"second core for record's writes: on $(nproc) cores the 2-thread ratio cannot reach 2x)"
echo "Summary: hetrace_ns/lttng_ns = HT_COUNTER vs the tracepoint, 1 thread, same payload;" \
	"disabled_ns = macro cost over the empty loop; bytes_per_event = HT_REGION_BEGIN/END;" \
	"lost = the paced run."
echo "record-bench: hetrace_ns=$ht_ns lttng_ns=$lttng_ns ratio=$ratio disabled_ns=$disabled_ns" \
	"threads2_speedup=$speedup bytes_per_event=$bpe lost=$lost"
