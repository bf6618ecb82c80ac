#!/usr/bin/env python3
"""What a cgroup CPU quota does to a run, and what the record says of it (metrics.
quota_throttled_share, harness/measure/cpu_quota_throttling.h, and the report's "quota
throttling" flag)

A ResNet-8 `speedbench run-one` of 1 and of 2 LibTorch threads, each without a quota and in a
cgroup of 1 core's quota (100 ms periods), --runs times, one after another. Prints, for each,
the median throughput, share of the quota's periods throttled ("-": no quota, none measured),
threads waiting for a CPU, and the health flags of the last run (run-one's summary line). Needs
root and a cgroup v1 cpu hierarchy or v2 with the cpu controller, and 2 or more cores.
Usage: cpu_quota.py [--runs 3] [--build build/default]
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np

from cgroups import in_cgroup, quota_cgroup
from race import RESNET8, config_for
from run_one import run_one

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    args = parser.parse_args()
    speedbench = os.path.join(args.build, "speedbench")
    if len(os.sched_getaffinity(0)) < 2 or args.runs < 1:
        sys.exit("cpu_quota.py: needs 2 or more usable cores and --runs 1 or more")
    cgroup_procs, no_cgroup = quota_cgroup(cores=1)
    if not cgroup_procs:
        sys.exit(f"cpu_quota.py: {no_cgroup}")
    work = tempfile.mkdtemp(prefix="speedbench-cpu-quota-")
    print("| threads | quota | samples/s | quota periods throttled | threads waiting for a CPU | "
          "flags of the last run |\n|---|---|---|---|---|---|")
    try:
        for threads in (1, 2):
            config_path = os.path.join(work, f"threads-{threads}.json")
            with open(config_path, "w") as f:
                json.dump({**config_for(RESNET8, 64, 60, None, 0), "threads": threads}, f)
            for quota, procs in (("none", None), ("1 core", cgroup_procs)):
                records = os.path.join(work, "runs.jsonl")
                runs = [run_one(speedbench, config_path, records, lambda c: in_cgroup(procs, c))
                        for _ in range(args.runs)]
                metrics = [m for m, _ in runs]
                shares = [m["quota_throttled_share"] for m in metrics
                          if m.get("quota_throttled_share") is not None]
                throttled = f"{np.median(shares):.2f}" if shares else "-"
                print(f"| {threads} | {quota} | {np.median([m['samples_per_s'] for m in metrics]):.0f} | "
                      f"{throttled} | {np.median([m['cpu_wait_threads'] for m in metrics]):.3f} | "
                      f"{runs[-1][1] or 'none'} |", flush=True)
    finally:
        os.rmdir(os.path.dirname(cgroup_procs))  # its runs have ended


if __name__ == "__main__":
    main()
