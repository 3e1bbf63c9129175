#!/usr/bin/env python3
"""bench/bench_trace_import.py - `lagom workload import` on a ~1 GiB trace.

Builds the trace in a temporary directory (removed afterwards) by repeating
the iterations of a real fixture (tests/fixtures/traces, V100 all-to-all +
all-reduce by default): each copy shifts every timestamp by the trace's span,
every correlation / External id by a constant and every ProfilerStep#N by the
number of steps, so the result reads as one long profiling window.  Prints
the trace size, the import's wall time and its peak RSS, against the goals
(< 60 s, < 256 MiB).  A benchmark: it prints figures and fails only when the
import itself fails.

usage: bench_trace_import.py LAGOM FIXTURE [TARGET_BYTES]
"""
import gzip, json, os, shutil, subprocess, sys, tempfile, time

lagom, fixture = sys.argv[1], sys.argv[2]
target = int(sys.argv[3]) if len(sys.argv) > 3 else 1 << 30
doc = json.load(gzip.open(fixture))
events = doc.pop("traceEvents")
ts = [e["ts"] for e in events if isinstance(e.get("ts"), (int, float))]
span = max(ts) - min(ts) + 1000
steps = sum(1 for e in events if str(e.get("name", "")).startswith("ProfilerStep#"))
id_shift = 1 + max(int(e.get("args", {}).get(k, 0)) for e in events
                   for k in ("correlation", "External id")
                   if isinstance(e.get("args", {}).get(k, 0), (int, float)))

tmp = tempfile.mkdtemp(prefix="lagom-bench-trace.")
path = os.path.join(tmp, "big.json")
try:
    t0 = time.time()
    with open(path, "w") as out:
        head = json.dumps(doc)[:-1]
        out.write(head + ', "traceEvents": [')
        size, copy, first = 0, 0, True
        while size < target:
            for e in events:
                if copy and isinstance(e.get("ts"), (int, float)):
                    e["ts"] += span
                a = e.get("args")
                if copy and isinstance(a, dict):
                    for k in ("correlation", "External id"):
                        if isinstance(a.get(k), int):
                            a[k] += id_shift
                n = e.get("name")
                if copy and isinstance(n, str) and n.startswith("ProfilerStep#"):
                    e["name"] = "ProfilerStep#%d" % (int(n[13:]) + steps)
            chunk = json.dumps(events, separators=(",", ":"))[1:-1]
            out.write(("" if first else ",") + chunk)
            first = False
            size += len(chunk)
            copy += 1
        out.write("]}\n")
    built = time.time() - t0
    nbytes = os.path.getsize(path)
    del events, doc
    # GNU time measures lagom alone: a child forked from this (large)
    # Python process would report Python's pages as its peak RSS.
    stats = os.path.join(tmp, "time.out")
    t0 = time.time()
    r = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%M", lagom,
                        "workload", "import", path, "-o",
                        os.path.join(tmp, "w.json")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.time() - t0
    rss_mib = int(open(stats).read().split()[-1]) / 1024
    print("trace: %.2f GiB (%d copies of %s, %d steps), built in %.1f s"
          % (nbytes / 2**30, copy, os.path.basename(fixture), copy * steps, built))
    print("import: %.1f s wall (goal < 60 s), peak RSS %.1f MiB (goal < 256 MiB), exit %d"
          % (wall, rss_mib, r.returncode))
    print(r.stdout.strip())
    if r.returncode:
        print(r.stderr.strip())
        sys.exit(1)
finally:
    shutil.rmtree(tmp)
