#!/usr/bin/env bash
# A 4-rank Open MPI job (mpi_prog: point-to-point, collectives, rank 2 slow)
# recorded by `hetrace record`, then checked by mpi_check.py on the report's
# "mpi" JSON and the timeline's MPI records (ht_test_timeline):
#   launcher  hetrace record -o T -- mpirun -np 4 mpi_prog   (launcher and ranks traced)
#   ranks     mpirun -np 4 hetrace record -o T -- mpi_prog   (one part per rank)
#   timens    the second form with ranks 2 and 3 in a Linux time namespace
#             5 s ahead (unshare -T --monotonic 5): like another node's clock
# and `mpirun -np K hetrace report T` (parts computed on K ranks, merged on
# rank 0 with MPI) must print exactly the serial report.
# The job runs under `timeout` and is killed if the test ends early; Open
# MPI's session files go to the test's own directory.
#   mpi_job.sh BUILD_DIR SCENARIO
. "$(dirname "$0")/../integration/lib.sh"
scenario=$2
here=$(cd "$(dirname "$0")" && pwd)
MPIPROG=$BUILD/bin/mpi_prog
# rank 2 sleeps 600 ms more per round: far above what a loaded machine adds
# to a rank (up to ~1 s over a whole job seen on 2 shared cores)
ITERS=3 SLOW=2 SLOW_MS=600
job=

end_job() {
	if [ -n "$job" ]; then
		kill -TERM "$job" 2>/dev/null
		sleep 1
		kill -KILL "$job" 2>/dev/null
	fi
	rm -rf "$WORK"
}
trap end_job EXIT

command -v mpirun >/dev/null || { echo "SKIP: mpirun absent (openmpi-bin)"; exit 77; }
mkdir tmp
export TMPDIR=$WORK/tmp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's hwloc would open OpenCL to list devices: slow, and not the job's.
export HWLOC_COMPONENTS=-opencl
mpirun=(mpirun --allow-run-as-root --oversubscribe)

# distributed_same NP [REPORT OPTIONS]: mpirun -np NP hetrace report equals the serial report
distributed_same() {
	local np=$1
	shift
	"$HT" report "$@" T >serial.out 2>&1 || fail "report $* failed: $(cat serial.out)"
	timeout -k 5 120 "${mpirun[@]}" -np "$np" "$HT" report "$@" T >dist.out 2>dist.err &
	job=$!
	wait "$job" || fail "mpirun -np $np hetrace report $* failed: $(tail -3 dist.err)"
	job=
	[ ! -s dist.err ] || fail "mpirun -np $np hetrace report $* said: $(head -3 dist.err)"
	cmp -s serial.out dist.out || fail "mpirun -np $np hetrace report $* differs from the serial report"
}

# otf2_same: the OTF2 export holds the job's MPI records, as otf2-print reads them
otf2_same() {
	command -v otf2-print >/dev/null || { echo "note: otf2-print absent (otf2-tools): OTF2 not checked"; return; }
	"$HT" export T --format otf2 -o O >export.out 2>&1 || fail "OTF2 export failed: $(cat export.out)"
	otf2-print O/traces.otf2 >otf2.txt 2>otf2.err || fail "otf2-print failed: $(head -3 otf2.err)"
	[ ! -s otf2.err ] || fail "otf2-print warned: $(head -3 otf2.err)"
	local r=$((4 * (ITERS + 1))) nb=$((4 * ITERS)) coll=$((4 * (3 * ITERS + 2)))
	assert_eq "$(count '^MPI_SEND ' otf2.txt)" $r "OTF2 MpiSend (send, sendrecv)"
	assert_eq "$(count '^MPI_RECV ' otf2.txt)" $r "OTF2 MpiRecv"
	assert_eq "$(count '^MPI_ISEND ' otf2.txt)" $nb "OTF2 MpiIsend"
	assert_eq "$(count '^MPI_ISEND_COMPLETE ' otf2.txt)" $nb "OTF2 MpiIsendComplete"
	assert_eq "$(count '^MPI_IRECV_REQUEST ' otf2.txt)" $nb "OTF2 MpiIrecvRequest"
	assert_eq "$(count '^MPI_IRECV ' otf2.txt)" $nb "OTF2 MpiIrecv"
	# allreduce N + 1, bcast N, barrier N, reduce 1 per rank
	assert_eq "$(count '^MPI_COLLECTIVE_BEGIN ' otf2.txt)" $coll "OTF2 collectives begun"
	assert_eq "$(count '^MPI_COLLECTIVE_END .*Operation: BARRIER, Communicator: "MPI_COMM_WORLD"' otf2.txt)" \
		$nb "OTF2 barriers on MPI_COMM_WORLD"
	otf2-print -G O/traces.otf2 >defs.txt 2>&1 || fail "otf2-print -G failed"
	grep -qE '^COMM .*Name: "MPI_COMM_WORLD"' defs.txt || fail "no MPI_COMM_WORLD in the OTF2 definitions"
	grep -qE '^GROUP .*Type: COMM_LOCATIONS, Paradigm: MPI, .*4 Members' defs.txt ||
		fail "no 4-rank locations group in the OTF2 definitions"
	rm -rf O
}

# ctf_same: the CTF export holds the job's MPI records, as babeltrace2 reads them
ctf_same() {
	local r=$((4 * (ITERS + 1))) nb=$((4 * ITERS))
	"$HT" export T --format ctf -o C >export.out 2>&1 || fail "CTF export failed: $(cat export.out)"
	bt2_read C ctf.txt
	assert_eq "$(count 'hetrace:mpi: .* what = "send",' ctf.txt)" $r "CTF sends (send, sendrecv)"
	assert_eq "$(count 'hetrace:mpi: .* what = "recv",' ctf.txt)" $r "CTF receives"
	assert_eq "$(count 'hetrace:mpi: .* what = "isend",' ctf.txt)" $nb "CTF isends"
	assert_eq "$(count 'hetrace:mpi: .* what = "irecv",' ctf.txt)" $nb "CTF irecvs completed"
	assert_eq "$(count 'hetrace:mpi: .* what = "barrier",' ctf.txt)" $nb "CTF barriers"
	# each rank's records name it
	for k in 0 1 2 3; do
		assert_ge "$(count "hetrace:mpi: .* rank = $k," ctf.txt)" 1 "CTF records of rank $k"
	done
	rm -rf C ctf.txt ctf.txt.err
}

# flows_same: every message is one flow from its sender to its receiver in
# the Chrome JSON and the Perfetto exports (pf_decode: an independent reader)
flows_same() {
	local n=$((4 * (2 * ITERS + 1)))
	"$HT" export T --format chrome -o c.json >export.out 2>&1 || fail "Chrome export failed: $(cat export.out)"
	! grep -q "without an arrow" export.out || fail "Chrome export: $(cat export.out)"
	python3 - c.json $n <<'PY' || fail "Chrome message flows"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
s = {e["id"]: e for e in ev if e.get("cat") == "mpi" and e["ph"] == "s"}
f = {e["id"]: e for e in ev if e.get("cat") == "mpi" and e["ph"] == "f"}
n = int(sys.argv[2])
bad = [i for i in f if i not in s or s[i]["pid"] == f[i]["pid"] or f[i].get("bp") != "e"]
print(f"chrome flows: {len(s)} starts, {len(f)} ends, {len(bad)} bad")
sys.exit(int(len(s) != n or len(f) != n or len(bad) > 0))
PY
	"$HT" export T --format perfetto -o p.pftrace >export.out 2>&1 || fail "Perfetto export failed: $(cat export.out)"
	"$BUILD/bin/pf_decode" p.pftrace >p.txt || fail "pf_decode: $(grep -m3 '^error' p.txt)"
	assert_eq "$(count '^flow from="send"@.* to="receive"@' p.txt)" $n "Perfetto message flows"
	rm -f c.json p.pftrace p.txt
}

# view_ranks: the HTML view lists other processes with rows (a launcher)
# first, then the 4 ranks' rows in rank order, each with its rank
view_ranks() {
	"$HT" view T -o v.html >view.out 2>&1 || fail "view failed: $(cat view.out)"
	python3 - v.html <<'PY' || fail "the view's processes are not grouped by rank"
import re, sys
procs = re.findall(r'\{"pid":\d+,"ppid":\d+,"name":\d+,"cmd":\d+,(?:"rank":(\d+),"host":\d+,)?"tracks"',
                   open(sys.argv[1]).read())
print("view processes by rank:", procs)
sys.exit(int(procs[-4:] != ["0", "1", "2", "3"] or any(procs[:-4])))
PY
	rm -f v.html
}

# run_job CMD...: runs the job (at most 120 s), its output in job.out
run_job() {
	timeout -k 5 120 "$@" >job.out 2>&1 &
	job=$!
	wait "$job"
	local rc=$?
	job=
	[ "$rc" = 0 ] || fail "the job failed ($rc): $(tail -5 job.out)"
	assert_eq "$(grep -c '^rank [0-3] of 4 sum' job.out)" 4 "ranks that finished"
}

rec=("$HT" record -o T --)
args=("$MPIPROG" $ITERS $SLOW $SLOW_MS)
shifted=
case $scenario in
launcher)
	run_job "${rec[@]}" "${mpirun[@]}" -np 4 "${args[@]}"
	grep -q "trace written to 'T' (5 processes)" job.out ||
		fail "the launcher and 4 ranks recorded: $(grep 'trace written' job.out)"
	distributed_same 2 --format json
	view_ranks
	;;
ranks)
	run_job "${mpirun[@]}" -np 4 "${rec[@]}" "${args[@]}"
	assert_eq "$(grep -c "trace written to 'T/r0000[0-3]-" job.out)" 4 "parts written"
	assert_eq "$(grep -c '^part=r0000[0-3]-.* rank=[0-3] ' T/hetrace.index)" 4 "parts in T's index"
	distributed_same 2 --format json
	distributed_same 3 --format csv
	otf2_same
	ctf_same
	flows_same
	view_ranks
	;;
timens)
	unshare -T --monotonic 5 true 2>/dev/null ||
		{ echo "SKIP: no Linux time namespace here (unshare -T needs root and CLONE_NEWTIME)"; exit 77; }
	run_job "${mpirun[@]}" -np 2 "${rec[@]}" "${args[@]}" \
		: -np 2 unshare -T --monotonic 5 "${rec[@]}" "${args[@]}"
	shifted=2,3
	;;
*) fail "unknown scenario '$scenario'" ;;
esac

"$HT" report --format json T >report.json 2>report.err || fail "report failed: $(cat report.err)"
"$BUILD/bin/ht_test_timeline" T >tl.out || fail "ht_test_timeline failed"
"$HT" report T >report.txt 2>&1 || fail "text report failed"
grep -q '^Wait states' report.txt || fail "no wait states in the text report"
python3 "$here/mpi_check.py" report.json tl.out $ITERS $SLOW $SLOW_MS "$shifted" || fail "mpi_check ($scenario)"
echo "ok: mpi_$scenario"
