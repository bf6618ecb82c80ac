#!/usr/bin/env python3
"""Does a transient at a run's start still skew its MFU? (why a run times its matmul peak at its
start and again at its end, and divides by the faster: harness/measure/matmul_peak.h)

A two-thread ResNet-8 `speedbench run-one` alone, then with a busy loop at nice -20 on the second
CPU this process may use for the run's first --transient-s seconds (the loop starves the product's
second thread while the start's probe runs, as a core the hypervisor or another process holds
back does, and is gone before training), back to back, for --pairs repetitions (seed r on both
sides), on a machine with 2 or more cores; nice -20 needs root. Prints, for each side, the
medians of the start's and the end's fp32 peaks, of the MFU the run reports (over the faster
peak), and of the MFU the start's peak alone gives (as builds before 2026-12-07 reported it; none
where above 1), how many runs the report flagged "peak moved", and the ratio of training
throughput with the transient to alone (the geometric mean of the pairs' ratios, Student-t 95%
interval, as the report pairs a suite's runs).
Usage: transient_at_start.py [--pairs 6] [--transient-s 1.0] [--build build/default]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from race import RESNET8, config_for, paired_ratio
from run_one import run_one

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def start_peak_mfu(metrics):
    """The MFU over the start's peak alone: None where that is above 1 (no MFU)."""
    rate = metrics["samples_per_s"] * metrics["train_flops_per_sample"]
    utilisation = rate / metrics["matmul_peak"]["flops_per_s_at_start"]["fp32"]
    return utilisation if utilisation <= 1 else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=6)
    parser.add_argument("--transient-s", type=float, default=1.0)
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    args = parser.parse_args()
    speedbench = os.path.join(args.build, "speedbench")
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or args.pairs < 2 or os.geteuid() != 0:
        sys.exit("transient_at_start.py: needs 2 or more usable cores, --pairs 2 or more and root")
    busy_loop = ["timeout", str(args.transient_s), "taskset", "-c", str(cpus[1]),
                 "nice", "-n", "-20", sys.executable, "-c", "while True: pass"]
    work = tempfile.mkdtemp(prefix="speedbench-transient-")
    config_path = os.path.join(work, "config.json")
    records = os.path.join(work, "runs.jsonl")
    alone, with_transient = [], []
    for rep in range(args.pairs):
        with open(config_path, "w") as f:
            json.dump(config_for(RESNET8, 64, 60, None, rep), f)
        alone.append(run_one(speedbench, config_path, records))
        loop = subprocess.Popen(busy_loop)
        try:
            with_transient.append(run_one(speedbench, config_path, records))
        finally:
            loop.wait()
    print("| side | fp32 peak at start (GFLOP/s) | at end | MFU reported | MFU over the start's "
          "peak | flagged peak moved |\n|---|---|---|---|---|---|")
    for side, runs in (("alone", alone), ("transient at start", with_transient)):
        metrics = [m for m, _ in runs]
        peak = lambda at: np.median([m["matmul_peak"][at]["fp32"] for m in metrics]) / 1e9
        old = [start_peak_mfu(m) for m in metrics]
        old_text = (f"{np.median([u for u in old if u is not None]):.3f}"
                    if any(u is not None for u in old) else "-")
        none = sum(u is None for u in old)
        print(f"| {side} | {peak('flops_per_s_at_start'):.0f} | {peak('flops_per_s_at_end'):.0f} | "
              f"{np.median([m['mfu'] for m in metrics]):.3f} | {old_text}"
              f"{f' ({none} of {len(old)} none)' if none else ''} | "
              f"{sum('peak moved' in flags for _, flags in runs)} of {len(runs)} |")
    ratio, low, high = paired_ratio([m["samples_per_s"] for m, _ in with_transient],
                                    [m["samples_per_s"] for m, _ in alone])
    print(f"\nthroughput with the transient / alone: {ratio:.3f}x [{low:.3f}, {high:.3f}]")


if __name__ == "__main__":
    main()
