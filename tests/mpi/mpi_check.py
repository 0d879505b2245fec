#!/usr/bin/env python3
"""Checks a recorded mpi_prog job (tests/mpi/mpi_job.sh): the report's "mpi"
JSON and the timeline's records printed by ht_test_timeline.

  mpi_check.py REPORT_JSON TL_OUT ITERS SLOW SLOW_MS SHIFTED

SHIFTED: comma-separated ranks whose clock runs 5 s ahead (time namespace),
or empty. Exits 1 with one line per failed check."""
import collections
import json
import sys

SIZE = 4
SHIFT_NS = 5_000_000_000
MAX_ERROR_NS = 10_000_000  # an error bound wider than this says nothing
KIND_SEND, KIND_ISEND, KIND_RECV, KIND_IRECV, KIND_COLL = 0, 1, 3, 5, 6

report_path, tl_path, iters, slow, slow_ms, shifted = sys.argv[1:7]
iters, slow, slow_ms = int(iters), int(slow), int(slow_ms)
shifted = {int(x) for x in shifted.split(",") if x}
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


mpi = json.load(open(report_path)).get("mpi")
if not mpi:
    sys.exit("FAIL: the report has no \"mpi\" key")
ranks = {r["rank"]: r for r in mpi["ranks"]}
check(mpi["size"] == SIZE and sorted(ranks) == list(range(SIZE)),
      f"ranks: size {mpi['size']}, ranks {sorted(ranks)}")

# exact MPI call counts per rank (mpi_prog.c's header comment)
expect = {"MPI_Init": 1, "MPI_Allreduce": iters + 1, "MPI_Send": iters, "MPI_Recv": iters,
          "MPI_Isend": iters, "MPI_Irecv": iters, "MPI_Waitall": iters, "MPI_Bcast": iters,
          "MPI_Barrier": iters, "MPI_Reduce": 1, "MPI_Sendrecv": 1, "MPI_Comm_split": 1,
          "MPI_Comm_free": 1, "MPI_Finalize": 1}
for k, r in ranks.items():
    got = {name: c["count"] for name, c in r["calls"].items()}
    check(got == expect, f"rank {k} calls: {got}")
    check(r["mpi_ns"] >= sum(c["total_ns"] for c in r["calls"].values()) > 0,
          f"rank {k}: mpi_ns {r['mpi_ns']} below its calls' total")

# the timeline: calls and MPI records, pid -> rank from the report
rank_of = {r["pid"]: k for k, r in ranks.items()}
calls = collections.defaultdict(collections.Counter)
sends, recvs = collections.Counter(), collections.Counter()
colls = collections.defaultdict(list)  # (comm, rank) -> [(name, begin, end)]
for line in open(tl_path):
    kind, *rest = line.split()
    f = dict(x.split("=", 1) for x in rest if "=" in x)
    if kind == "end" and f.get("name", "").startswith("MPI_"):
        calls[rank_of.get(int(f["pid"]), -1)][f["name"]] += 1
    if kind != "mpi":
        continue
    pid, rank, mkind, comm = int(f["pid"]), int(f["rank"]), int(f["mpi_kind"]), int(f["comm"])
    peer, tag, begin, ts = int(f["peer_world"]), int(f["tag"]), int(f["begin"]), int(f["ts"])
    check(rank_of.get(pid) == rank, f"record of pid {pid} says rank {rank}")
    if mkind in (KIND_SEND, KIND_ISEND):
        sends[(rank, peer, tag)] += 1
    elif mkind in (KIND_RECV, KIND_IRECV):
        recvs[(peer, rank, tag)] += 1
    elif mkind == KIND_COLL:
        colls[(comm, rank)].append((f["name"], begin, ts))
for k in range(SIZE):
    check(dict(calls[k]) == expect, f"rank {k} calls in the timeline: {dict(calls[k])}")

# messages: every send matched by the receive it went to, as the program sends them
want = collections.Counter()
for r in range(SIZE):
    for tag in [100 + i for i in range(iters)] + [200 + i for i in range(iters)] + [300]:
        want[(r, (r + 1) % SIZE, tag)] += 1
check(sends == want, f"sends (from, to, tag): {sorted(sends.items())}")
check(recvs == want, f"receives (from, to, tag): {sorted(recvs.items())}")
n = SIZE * (2 * iters + 1)
check(mpi["messages"] == {"sent": n, "received": n, "matched": n}, f"messages: {mpi['messages']}")

# the slow rank is the one the others waited for
ws = mpi["wait_states"]
check(mpi["waited_for"]["rank"] == slow, f"waited for most: {mpi['waited_for']}")
for state in ("wait_at_collective", "late_sender"):
    w = ws[state]["waited_for"]
    check(w and w[0]["rank"] == slow, f"{state} waited for: {w}")
# each other rank waits about SLOW_MS for it in each round's allreduce
w = {x["rank"]: x["ns"] for x in ws["wait_at_collective"]["waited_for"]}
least = (SIZE - 1) * iters * slow_ms * 1_000_000 // 2
check(w.get(slow, 0) >= least, f"waited for rank {slow} at collectives: {w.get(slow, 0)} ns, "
      f"expected at least {least}")
check(ranks[slow]["compute_ns"] == max(r["compute_ns"] for r in ranks.values()),
      "the slow rank computes the most")
check(mpi["load_imbalance"]["compute_max_rank"] == slow, f"imbalance: {mpi['load_imbalance']}")

# clock offsets within their error bounds
errs = {}
for k, r in ranks.items():
    true = SHIFT_NS if k in shifted else 0
    err = r["clock_error_ns"]
    errs[k] = err
    check(r["clock_measurements"] >= 1, f"rank {k}: no clock measurement")
    check(abs(r["clock_offset_ns"] - true) <= err <= MAX_ERROR_NS,
          f"rank {k}: offset {r['clock_offset_ns']} error {err}, true offset {true}")
    # a rank that reads rank 0's clock (same boot, same time namespace) knows it exactly
    check(k in shifted or (r["clock_offset_ns"], err) == (0, 0),
          f"rank {k} shares rank 0's clock: offset {r['clock_offset_ns']} error {err}, not 0 and 0")

# collectives overlap after alignment: in a barrier or an allreduce nobody
# leaves before everyone came, up to the two ranks' error bounds
worst = 0
for comm in sorted({c for c, _ in colls}):
    members = sorted(r for c, r in colls if c == comm)
    lists = [colls[(comm, r)] for r in members]
    check(len({len(x) for x in lists}) == 1, f"comm {comm}: collectives per rank {[len(x) for x in lists]}")
    for inst in zip(*lists):
        names = {x[0] for x in inst}
        check(len(names) == 1, f"comm {comm}: one instance, different collectives {names}")
        if names & {"barrier", "allreduce"}:
            late = max(range(len(inst)), key=lambda i: inst[i][1])
            early = min(range(len(inst)), key=lambda i: inst[i][2])
            gap = inst[late][1] - inst[early][2]
            tol = errs[members[late]] + errs[members[early]]
            worst = max(worst, gap)
            check(gap <= tol, f"comm {comm} {names}: rank {members[late]} began {gap} ns after "
                  f"rank {members[early]} left (tolerance {tol} ns)")
world = [c for c, _ in colls if c == 1]
check(len(world) == SIZE, "world collectives on comm 1")
halves = {r: c for c, r in colls if c != 1}
check(len(halves) == SIZE and halves[0] == halves[2] and halves[1] == halves[3]
      and halves[0] != halves[1], f"split communicators: {halves}")

for f in failures:
    print("FAIL:", f)
print(f"mpi_check: {len(failures)} failures; offsets "
      + " ".join(f"{k}:{ranks[k]['clock_offset_ns']}+-{errs[k]}" for k in sorted(ranks))
      + f"; latest collective entry after the earliest exit: {worst} ns")
sys.exit(1 if failures else 0)
