#!/usr/bin/env python3
"""Does load on a core the run leaves idle slow it? (why the health flag counts only load beyond
the run's idle cores, harness/report/run_health.cpp)

A one-thread ResNet-8 `speedbench run-one` alone, then beside a busy loop, back to back, for
--pairs repetitions (seed r on both sides), on a machine with 2 or more cores: once as the
scheduler places them ("unpinned") and once with the run on the first CPU this process may use
and the loop on the second ("pinned apart"), and, where this process may make a cgroup (root, a
cgroup v1 cpu hierarchy or v2 with the cpu controller), once with the run in a cgroup of 1 core's
CPU quota and the loop outside it ("1-core quota": the report's other-load flag counts the cores
beyond a run's quota as spare, since other load there takes nothing from it). Prints, for each,
the ratio of throughput beside the loop to alone (the geometric mean of the pairs' ratios,
Student-t 95% interval, as the report pairs a suite's runs), the records'
other_processes_busy_cores and cpu_wait_threads medians, and how many runs beside the loop the
report's health check flagged for other load (run-one's summary line names its flags).
Usage: idle_core_load.py [--pairs 8] [--build build/default]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from cgroups import in_cgroup, quota_cgroup
from race import RESNET8, config_for, paired_ratio
from run_one import run_one

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUSY_LOOP = [sys.executable, "-c", "while True: pass"]


def pinned(cpu, command):
    return ["taskset", "-c", str(cpu)] + command if cpu is not None else command


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    args = parser.parse_args()
    speedbench = os.path.join(args.build, "speedbench")
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or args.pairs < 2:
        sys.exit("idle_core_load.py: needs 2 or more usable cores and --pairs 2 or more")
    work = tempfile.mkdtemp(prefix="speedbench-idle-core-")
    print("| placement | alone samples/s | beside the loop samples/s | ratio [95% CI] | "
          "other load (cores) | beside the loop, flagged for other load | threads waiting for a CPU |\n"
          "|---|---|---|---|---|---|---|")
    cgroup_procs, no_cgroup = quota_cgroup(cores=1)
    placements = [("unpinned", None, None, None), ("pinned apart", cpus[0], cpus[1], None)]
    if cgroup_procs:
        placements.append(("1-core quota", None, None, cgroup_procs))
    try:
        for placement, run_cpu, loop_cpu, procs in placements:
            wrap = lambda command: in_cgroup(procs, pinned(run_cpu, command))
            alone, beside = [], []
            for rep in range(args.pairs):
                config_path = os.path.join(work, "config.json")
                with open(config_path, "w") as f:
                    json.dump({**config_for(RESNET8, 64, 60, None, rep), "threads": 1}, f)
                records = os.path.join(work, "runs.jsonl")
                alone.append(run_one(speedbench, config_path, records, wrap)[0])
                loop = subprocess.Popen(pinned(loop_cpu, BUSY_LOOP))
                try:
                    metrics, flags = run_one(speedbench, config_path, records, wrap)
                    beside.append({**metrics, "flagged_other_load": "other load" in flags})
                finally:
                    loop.kill()
                    loop.wait()
            throughput = lambda runs: [m["samples_per_s"] for m in runs]
            median = lambda runs, key: float(np.median([m[key] for m in runs]))
            ratio, low, high = paired_ratio(throughput(beside), throughput(alone))
            print(f"| {placement} | {np.median(throughput(alone)):.0f} | "
                  f"{np.median(throughput(beside)):.0f} | {ratio:.3f}x [{low:.3f}, {high:.3f}] | "
                  f"{median(alone, 'other_processes_busy_cores'):.2f} -> "
                  f"{median(beside, 'other_processes_busy_cores'):.2f} | "
                  f"{sum(m['flagged_other_load'] for m in beside)} of {len(beside)} | "
                  f"{median(alone, 'cpu_wait_threads'):.3f} -> {median(beside, 'cpu_wait_threads'):.3f} |",
                  flush=True)
    finally:
        if cgroup_procs:
            os.rmdir(os.path.dirname(cgroup_procs))  # its runs have ended
    if not cgroup_procs:
        print(f"(no 1-core quota row: {no_cgroup})")


if __name__ == "__main__":
    main()
