#!/usr/bin/env python3
"""Recompute, independently of lagom's C code, every row of the contention
table `lagom workload import --format json` printed (argv[2]) from the raw
trace (argv[1]): the rules of doc/workload-import.md.  Prints one line per
disagreement; exit 1 if any."""
import gzip, json, statistics, sys


def fnv(s):
    h = 0xCBF29CE484222325  # FNV-1a 64-bit offset basis
    for b in s.encode():
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def nccl(name):
    n = name[5:] if name.startswith("void ") else name
    return n.startswith("ncclKernel_") or n.startswith("ncclDevKernel_")


def prod(v):
    p = 1
    for x in v:
        p *= x if x > 0 else 1
    return p


trace = json.load(gzip.open(sys.argv[1]))
props = trace["deviceProperties"][0]
max_warps = props["maxThreadsPerMultiprocessor"] // props["warpSize"]
report = json.load(open(sys.argv[2]))["contention"]
ev = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
nk = [e for e in ev if nccl(e["name"])]
dev = nk[0]["args"]["device"]
nk = [e for e in nk if e["args"]["device"] == dev]
comp = [e for e in ev if not nccl(e["name"]) and e["args"]["device"] == dev]
bad = 0
mins = report["min_samples"]
for row in report["rows"]:
    kind = [e for e in comp if fnv(e["name"]) == row["kernel_id"]
            and prod(e["args"]["grid"]) == row["grid_blocks"]
            and prod(e["args"]["block"]) == row["block_threads"]]
    alone, beside = [], []
    for e in kind:
        s, t = e["ts"], e["ts"] + e["dur"]
        over = [n for n in nk if n["ts"] < t and n["ts"] + n["dur"] > s]
        if not over:
            alone.append(e["dur"])
        inside = [n for n in over if n["ts"] <= s and n["ts"] + n["dur"] >= t]
        for n in inside:
            if (prod(n["args"]["grid"]) == row["nccl_channels"]
                    and prod(n["args"]["block"]) == row["nccl_threads"]):
                beside.append(e["dur"])
    # blocks_per_sm (CUDA occupancy rules) against Kineto's own "est.
    # achieved occupancy %" = min(blocks per SM, grid / SMs) x warps per
    # block / warps per SM, printed as an integer (0 where Kineto's
    # calculator ignores opt-in shared memory).
    occ = kind[0]["args"].get("est. achieved occupancy %", 0)
    warps = (row["block_threads"] + 31) // 32
    ours = min(row["blocks_per_sm"], row["grid_blocks"] / props["numSms"]) \
        * warps / max_warps * 100
    if occ > 0 and abs(ours - occ) > 1:
        bad += 1
        print("row %s grid %d: occupancy %.1f%% from blocks_per_sm %d, "
              "Kineto says %d%%" % (row["kernel"][:40], row["grid_blocks"],
                                    ours, row["blocks_per_sm"], occ))
    med_a = statistics.median(alone) if alone else 0
    med_b = statistics.median(beside) if beside else 0
    checks = [
        (len(alone) == row["alone_n"], "alone_n %d" % len(alone)),
        (len(beside) >= row["beside_n"], "beside_n %d" % len(beside)),
        (row["alone_n"] >= mins and row["beside_n"] >= mins, "min samples"),
        (abs(med_a - row["alone_us"]) <= 1e-6 * max(1, med_a),
         "alone median %.6g" % med_a),
        (abs(row["slowdown"] / (row["beside_us"] / row["alone_us"]) - 1) < 1e-5,
         "slowdown = beside / alone"),
        (row["plausible"] == (row["slowdown"] >= 0.95), "plausible flag"),
    ]
    for good, what in checks:
        if not good:
            bad += 1
            print("row %s grid %d: %s (row says %s)" % (
                row["kernel"][:40], row["grid_blocks"], what,
                json.dumps(row)[:200]))
sys.exit(1 if bad else 0)
