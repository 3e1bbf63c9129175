#!/usr/bin/env python3
"""Recompute, independently of lagom's C code, every row of the contention
table `lagom workload import --format json` printed (argv[2]) from the raw
trace (argv[1]): the rules of doc/workload-import.md, the NCCL kernels'
protocol included.  Prints one line per disagreement; exit 1 if any."""
import gzip, json, math, statistics, sys


def fnv(s):
    h = 0xCBF29CE484222325  # FNV-1a 64-bit offset basis
    for b in s.encode():
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def nccl(name):
    n = name[5:] if name.startswith("void ") else name
    return n.startswith("ncclKernel_") or n.startswith("ncclDevKernel_")


def proto(name, block):
    """The protocol an NCCL kernel ran (doc/workload-import.md): a
    point-to-point kernel by its name's SIMPLE, a collective by its
    threads (544 Simple, 640 LL128, 512 LL); else unknown."""
    n = name[5:] if name.startswith("void ") else name
    if not nccl(n):
        return "unknown"
    words = n.split("(")[0].split("_")
    if {"SendRecv", "Send", "Recv"} & set(words):
        return "simple" if "SIMPLE" in words else "unknown"
    return {544: "simple", 640: "ll128", 512: "ll"}.get(block, "unknown")


def prod(v):
    p = 1
    for x in v:
        p *= x if x > 0 else 1
    return p


DTYPE = {"float": 4, "int": 4, "long": 8, "half": 2, "c10::half": 2,
         "bfloat16": 2, "c10::bfloat16": 2, "double": 8, "byte": 1,
         "char": 1, "int8": 1, "uint8": 1}


def nbytes(nelems, dtype):
    return nelems * DTYPE.get(str(dtype).lower(), 4)


def coll_size(n, launches, annots):
    """Bytes of NCCL kernel n: its own args (Kineto copies
    record_param_comms onto it), else the innermost nccl:* annotation with
    input dims around its launch on the launching thread; None unknown."""
    a = n["args"]
    if "In msg nelems" in a:
        key = "Out msg nelems" if a.get("Collective name") == "all_gather" \
            else "In msg nelems"
        return nbytes(a[key], a.get("dtype", "float"))
    launch = launches.get(a.get("correlation"))
    if launch is None:
        return None
    best = None
    for c in annots:
        if c["tid"] == launch["tid"] and \
                c["ts"] <= launch["ts"] <= c["ts"] + c["dur"] and \
                (best is None or c["ts"] >= best["ts"]):
            best = c
    if best is None:
        return None
    elems = 1
    for d in best["args"]["Input Dims"][0]:
        elems *= d
    return nbytes(elems, best["args"]["Input type"][0])


trace = json.load(gzip.open(sys.argv[1]))
props = trace["deviceProperties"][0]
max_warps = props["maxThreadsPerMultiprocessor"] // props["warpSize"]
report = json.load(open(sys.argv[2]))["contention"]
ev = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
nk = [e for e in ev if nccl(e["name"])]
dev = nk[0]["args"]["device"]
nk = [e for e in nk if e["args"]["device"] == dev]
comp = [e for e in ev if not nccl(e["name"]) and e["args"]["device"] == dev]
launches = {e["args"].get("correlation"): e for e in trace["traceEvents"]
            if e.get("cat") == "cuda_runtime"}
annots = [e for e in trace["traceEvents"]
          if e.get("cat") in ("user_annotation", "cpu_op")
          and e.get("name", "").startswith("nccl:")
          and e.get("args", {}).get("Input Dims")]
for n in nk:
    n["bytes"] = coll_size(n, launches, annots)
bad = 0
if report["lagom_contention"] != 3:
    bad += 1
    print("lagom_contention %s, want 3" % report["lagom_contention"])
mins = report["min_samples"]
for row in report["rows"]:
    kind = [e for e in comp if fnv(e["name"]) == row["kernel_id"]
            and prod(e["args"]["grid"]) == row["grid_blocks"]
            and prod(e["args"]["block"]) == row["block_threads"]]
    alone, beside, group = [], [], []
    for e in kind:
        s, t = e["ts"], e["ts"] + e["dur"]
        over = [n for n in nk if n["ts"] < t and n["ts"] + n["dur"] > s]
        if not over:
            alone.append(e["dur"])
        inside = [n for n in over if n["ts"] <= s and n["ts"] + n["dur"] >= t]
        for n in inside:
            if (prod(n["args"]["grid"]) == row["nccl_channels"]
                    and prod(n["args"]["block"]) == row["nccl_threads"]
                    and proto(n["name"], prod(n["args"]["block"]))
                    == row["nccl_proto"]):
                beside.append(e["dur"])
                b = n["bytes"]
                log2 = math.floor(math.log2(b)) if b else -1
                if b is not None and log2 == row["nccl_size_log2"]:
                    group.append((b, b / (n["dur"] * 1e-6)))
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
    # the NCCL kernels' size group (power of two of their bytes), median
    # bytes and median rate bytes / kernel duration
    if row["nccl_size_log2"] >= 0:
        sizes = [g[0] for g in group]
        rates = [g[1] for g in group]
        checks += [
            (len(group) == row["beside_n"], "size group beside_n %d" %
             len(group)),
            (sizes and abs(statistics.median(sizes) - row["nccl_bytes"])
             <= 1, "median bytes %s" % (statistics.median(sizes)
                                        if sizes else None)),
            (rates and abs(statistics.median(rates) / row["nccl_Bps"] - 1)
             < 1e-6, "median rate %s B/s" % (statistics.median(rates)
                                            if rates else None)),
        ]
    else:
        checks.append((row["nccl_bytes"] == 0 and row["nccl_Bps"] == 0,
                       "unsized: bytes and rate 0"))
    for good, what in checks:
        if not good:
            bad += 1
            print("row %s grid %d: %s (row says %s)" % (
                row["kernel"][:40], row["grid_blocks"], what,
                json.dumps(row)[:200]))
sys.exit(1 if bad else 0)
