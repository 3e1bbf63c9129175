#!/usr/bin/env python3
"""tests/integration/forge_carrier.py - what a hostile user can write into
SLURM_LAGOM_STEP_PLAN: a well-formed lagom-step 1 text (spank/carrier.h) for
a step the user can predict, with whatever summary and variables they like.

  forge_carrier.py JOB STEP NTASKS TPN NODES SUMMARY [NAME=VALUE...]

NODES is the step's node names, comma-separated, in Slurm's order.
"""
import sys

FNV_INIT = 0xcbf29ce484222325
FNV_PRIME = 0x100000001b3


def fnv1a64(data: bytes, h: int = FNV_INIT) -> int:
    for b in data:
        h ^= b
        h = (h * FNV_PRIME) & 0xffffffffffffffff
    return h


def main() -> None:
    job, step, ntasks, tpn, nodes, summary = sys.argv[1:7]
    names = nodes.split(",")
    nodes_hash = fnv1a64("".join(n + "\n" for n in names).encode())
    text = "lagom-step 1\n"
    text += (f"job={job} step={step} nodes={len(names)} tasks={ntasks} "
             f"tpn={tpn} gpus=4 nodes_hash={nodes_hash:016x} mode=auto "
             f"plan=00000000deadbeef\n")
    text += f"summary {summary}\n"
    for kv in sys.argv[7:]:
        text += f"var {kv}\n"
    text += f"end {fnv1a64(text.encode()):016x}\n"
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
