#!/usr/bin/env python3
"""Write synthetic measured steps into a lagom spool, as the profiler and
the SPANK plugin leave them (doc/profiler.md, doc/report.md): per step
STEP/key, STEP/predicted (with default_ns, and `arm control` for a control
step) and one record per task whose main communicator's iteration is the
step's time.

    report_spool.py SPOOL USER FIRST_JOB SPEC... > truth.json

SPEC is CLASS:ARM:RUNS:SPEEDUP:NOISE[:PREDICTED] -- RUNS steps of class
CLASS (the key's job name), ARM tuned, control, measure, revert (a step
srun reverted to NCCL's defaults) or untuned, each
iteration 10 ms / SPEEDUP (tuned) or 10 ms (others) times a log-normal
factor of sigma NOISE, from a fixed seed.  Prints the times it wrote, per
class and arm, as JSON, so that a test checks the report's figures against
its own computation.

Environment: REPORT_KEY, a step key's whole text, replaces the key made
from CLASS; REPORT_PLAN the plan id (default 00000000000000aa).
"""
import json
import math
import os
import random
import sys

PLAN = os.environ.get("REPORT_PLAN") or "00000000000000aa"
KEY = os.environ.get("REPORT_KEY")
if KEY and not KEY.endswith("\n"):
    KEY += "\n"  # $(cat key) drops it


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def record(job, task, plan, iter_ns, start):
    return "\n".join([
        "lagom-measure 1", "abi 5",
        "job %d step 0 task %d pid %d" % (job, task, 1000 + task),
        "plan %s" % plan, "time %d %d" % (start, start + 60),
        "comms 1 dropped 0",
        "comm 0000000000001000 ranks 2 nodes 1 rank %d name - "
        "overflow 0 incomplete 0 classes 2" % task,
        "class allreduce 1048576 ring simple 8 count 100 gpu 100 "
        "%d 9000 11000 gap 0 0" % (100 * 10000),
        "class allgather 524288 ring simple 8 count 100 gpu 100 "
        "%d 4000 6000 gap 0 0" % (100 * 5000),
        "period 2 n 50 ns %d" % iter_ns, "seq 0 1", "end"]) + "\n"


def main():
    spool, user, job = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rng = random.Random(20261128)
    truth = {}
    for spec in sys.argv[4:]:
        f = spec.split(":")
        cls, arm, runs, speedup, noise = f[0], f[1], int(f[2]), \
            float(f[3]), float(f[4])
        predicted = float(f[5]) if len(f) > 5 else 0
        for _ in range(runs):
            base = 10e6 / speedup if arm == "tuned" else 10e6
            iter_ns = int(round(base * math.exp(rng.gauss(0, noise))))
            d = os.path.join(spool, user, "%d.0" % job)
            os.makedirs(d, exist_ok=True)
            write(d + "/key", KEY or "lagom-key 1\njob:%s shape:1x2x2 "
                  "workload:-\n" % cls)
            pred = "lagom-predicted 1\nplan %s\niteration_ns 9000000\n" \
                % PLAN
            if predicted:
                pred += "default_ns %d\n" % round(9000000 * predicted)
            if arm in ("control", "measure", "revert"):
                pred += "arm %s\n" % arm
            write(d + "/predicted", pred + "end\n")
            plan = PLAN if arm == "tuned" else "-"
            start = 1764200000 + 100 * job
            for task in (0, 1):
                write(d + "/task-%d.%d.rec" % (task, 1000 + task),
                      record(job, task, plan, iter_ns, start))
            truth.setdefault(cls, {}).setdefault(arm, []).append(
                iter_ns / 1e9)
            job += 1
    json.dump(truth, sys.stdout, indent=1, sort_keys=True)


main()
