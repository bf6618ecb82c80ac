#!/usr/bin/env python3
"""Side-by-side races, interleaved and paired by repetition (issue: is the harness itself fast?).

  --race python    speedbench run-one vs bench/python_parity/train.py (the same config, the
                   same torch 2.11: the wheel's LibTorch is what the C++ build links), for
                   ResNet-8 batch 128 and 16, row-LSTM batch 32, char-LM batch 32, each with all
                   techniques off and with the CPU-applicable ones on. Ratio = speedbench / Python
                   throughput (goal >= 1.0).
  --race overhead  speedbench run-one (all meters on) vs build/.../speedbench_minimal_loop (a
                   hand-written LibTorch loop) on ResNet-8 and the row LSTM at batch 128.
                   Ratio = harness step time / minimal step time (goal <= 1.01).

Every process trains one run; repetition r uses seed r on both sides, which run back to back
(which goes first flips every repetition), so the two runs of a repetition share the machine's
state of that moment: a ratio is the geometric mean of the repetitions' ratios with a Student-t
95% interval on their logs, as the report pairs a suite's runs by seed. Prints a markdown table
and writes race-RACE.md and race-RACE.json (every run's throughput and accuracy) to --out.
Usage: race.py --race python|overhead [--repetitions 5] [--only CASE,...] [--out DIR]
       race.py --from race-RACE.json [--out DIR]   the tables again from a race's runs, no runs
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from run_one import run_one

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FASHION = {"dataset": "fashion_mnist", "test_samples": 2000}
RESNET8 = {"model": {"arch": "resnet", "depth": 8, "widths": [16, 32, 64]}, "data": FASHION,
           "optimizer": {"name": "sgd", "lr": 0.05, "momentum": 0.9}}
ROW_LSTM = {"model": {"arch": "row_rnn", "cell": "lstm", "hidden": 128}, "data": FASHION,
            "optimizer": {"name": "adam", "lr": 0.005}}
CHAR_LM = {"model": {"arch": "char_lm", "cell": "lstm", "hidden": 256, "embedding": 64},
           "data": {"dataset": "fortunes", "sequence_length": 64, "test_samples": 500},
           "optimizer": {"name": "adam", "lr": 0.003}}
# The techniques both loops implement that apply on a CPU (image-only and ResNet-only ones where
# they mean something).
ON_COMMON = {"amp": "bf16", "optimizer_impl": "fused", "sync_avoidance": True,
             "zero_grad_none": True, "host_to_tensor": True, "eval_no_grad": True}
ON_IMAGES = {**ON_COMMON, "input_norm": True}
ON_RESNET = {**ON_IMAGES, "bn_no_bias": True, "channels_last": True}

# name -> (workload config, batch, steps, techniques when "on")
PYTHON_CASES = {
    "resnet8_b128": (RESNET8, 128, 60, ON_RESNET),
    "resnet8_b16": (RESNET8, 16, 300, ON_RESNET),
    "row_lstm_b32": (ROW_LSTM, 32, 400, ON_IMAGES),
    "char_lm_b32": (CHAR_LM, 32, 150, ON_COMMON),
}
OVERHEAD_CASES = {
    "resnet8_b128": (RESNET8, 128, 60, None),
    "row_lstm_b128": (ROW_LSTM, 128, 150, None),
}


def config_for(workload, batch, steps, techniques, seed):
    config = {**workload, "batch_size": batch, "max_steps": steps, "warmup_steps": 10,
              "eval_batch_size": 500, "threads": 2, "seed": seed, "progress_every_s": 0}
    if techniques:
        config["techniques"] = techniques
    return config


def run_speedbench(speedbench, config_path, records):
    m, _ = run_one(speedbench, config_path, records)
    return {"samples_per_s": m["samples_per_s"], "test_accuracy": m["final_test_accuracy"]}


def run_json_line(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def student_t_quantile(confidence, degrees_of_freedom):
    """The t with P(|T| < t) = confidence: bisection on the t density integrated numerically
    (Simpson's rule), as no scipy is at hand (harness/measure/statistics.h has the C++ one)."""
    k = degrees_of_freedom
    scale = math.gamma((k + 1) / 2) / (math.sqrt(k * math.pi) * math.gamma(k / 2))
    def central_probability(t, intervals=2000):
        xs = np.linspace(0, t, intervals + 1)
        density = scale * (1 + xs * xs / k) ** (-(k + 1) / 2)
        weights = np.ones(intervals + 1)
        weights[1:-1:2], weights[2:-1:2] = 4, 2
        return 2 * float(np.dot(weights, density)) * t / intervals / 3
    low, high = 0.0, 1000.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if central_probability(middle) < confidence else (low, middle)
    return (low + high) / 2


def paired_ratio(numerator, denominator):
    """The geometric mean of numerator[r] / denominator[r] over repetitions r with the Student-t
    95% interval of their logs' mean (the report's statistic for runs paired by seed)."""
    logs = np.log(np.asarray(numerator, dtype=float)) - np.log(np.asarray(denominator, dtype=float))
    mean, n = float(np.mean(logs)), len(logs)
    half_width = student_t_quantile(0.95, n - 1) * float(np.std(logs, ddof=1)) / math.sqrt(n)
    return math.exp(mean), math.exp(mean - half_width), math.exp(mean + half_width)


def race(args, cases, modes, other):
    """Runs every case's sides interleaved; (case, mode, side) -> that side's results by repetition."""
    speedbench = os.path.join(args.build, "speedbench")
    minimal = os.path.join(args.build, "bench", "speedbench_minimal_loop")
    for tool in [speedbench] + ([minimal] if args.race == "overhead" else []):
        if not os.access(tool, os.X_OK):
            sys.exit(f"race.py: {tool} is missing; build first (cmake --workflow --preset default)")
    work = tempfile.mkdtemp(prefix="speedbench-race-")
    samples = {}
    total = args.repetitions * len(cases) * len(modes) * 2
    done, start = 0, time.time()
    for rep in range(args.repetitions):
        for case, (workload, batch, steps, on) in cases.items():
            for mode in modes:
                config_path = os.path.join(work, f"{case}-{mode}.json")
                with open(config_path, "w") as f:
                    # Repetition r uses seed r on both sides: they pair by repetition.
                    json.dump(config_for(workload, batch, steps, on if mode == "on" else None, rep), f)
                sides = ["speedbench", other] if rep % 2 == 0 else [other, "speedbench"]
                for side in sides:
                    if side == "speedbench":
                        result = run_speedbench(speedbench, config_path, os.path.join(work, "runs.jsonl"))
                    elif side == "python":
                        result = run_json_line([args.python, os.path.join(HERE, "python_parity", "train.py"), config_path])
                    else:
                        result = run_json_line([minimal, config_path])
                    samples.setdefault((case, mode, side), []).append(result)
                    done += 1
                    print(f"[{done}/{total}] rep {rep} {case} {mode} {side}: "
                          f"{result['samples_per_s']:.0f} samples/s, accuracy {result['test_accuracy']:.4f} "
                          f"({time.time() - start:.0f} s)", file=sys.stderr, flush=True)
    rows = []
    for case in cases:
        for mode in modes:
            row = {"case": case, "techniques": mode}
            for side in ("speedbench", other):
                row[f"{side}_samples_per_s"] = [r["samples_per_s"] for r in samples[(case, mode, side)]]
                row[f"{side}_accuracy"] = [r["test_accuracy"] for r in samples[(case, mode, side)]]
                row[f"{side}_accuracy_median"] = float(np.median(row[f"{side}_accuracy"]))
            rows.append(row)
    return rows


def write_tables(race_kind, repetitions, rows, out):
    """Each row's paired ratio; race-RACE.md and race-RACE.json in out, the markdown printed."""
    other = "python" if race_kind == "python" else "minimal"
    table = []
    for row in rows:
        ours, theirs = row["speedbench_samples_per_s"], row[f"{other}_samples_per_s"]
        if len(ours) != len(theirs):
            sys.exit(f"race.py: {row['case']} {row['techniques']}: {len(ours)} speedbench runs and "
                     f"{len(theirs)} {other} runs; expected one of each per repetition")
        # python race: speedbench / python throughput; overhead: harness / minimal step time.
        ratio = paired_ratio(ours, theirs) if race_kind == "python" else paired_ratio(theirs, ours)
        row.update({"ratio": ratio[0], "low": ratio[1], "high": ratio[2], "pairs": len(ours)})
        table.append(f"| {row['case']} | {row['techniques']} | {np.median(ours):.0f} | {np.median(theirs):.0f} | "
                     f"{ratio[0]:.3f}x [{ratio[1]:.3f}, {ratio[2]:.3f}] | "
                     f"{row['speedbench_accuracy_median']:.4f} / {row[f'{other}_accuracy_median']:.4f} |")
    what = ("speedbench / Python throughput" if race_kind == "python"
            else "harness / minimal-loop step time")
    markdown = (f"# Race: speedbench vs {other} ({repetitions} repetitions, interleaved)\n\n"
                f"Ratio = {what}, the geometric mean of the repetitions' ratios (the two runs of a "
                f"repetition share its seed and run back to back) with a Student-t 95% interval; "
                f"samples/s = each side's median; accuracy = median test accuracy after the same "
                f"steps (speedbench / {other}).\n\n"
                f"| case | techniques | speedbench samples/s | {other} samples/s | ratio | accuracy |\n"
                "|---|---|---|---|---|---|\n" + "\n".join(table) + "\n")
    print(markdown)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"race-{race_kind}.md"), "w") as f:
        f.write(markdown)
    with open(os.path.join(out, f"race-{race_kind}.json"), "w") as f:
        json.dump({"race": race_kind, "repetitions": repetitions, "rows": rows}, f, indent=1)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--race", choices=["python", "overhead"])
    parser.add_argument("--from", dest="from_json", metavar="RACE_JSON",
                        help="summarize the runs of an earlier race again instead of racing")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "race"))
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    parser.add_argument("--python", default=sys.executable, help="the python with torch 2.11")
    args = parser.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            earlier = json.load(f)
        write_tables(earlier["race"], earlier["repetitions"], earlier["rows"], args.out)
        return
    if not args.race:
        parser.error("--race is required (or --from an earlier race's JSON)")
    if args.repetitions < 2:
        sys.exit("race.py: --repetitions must be at least 2 (an interval needs repetitions)")
    cases = PYTHON_CASES if args.race == "python" else OVERHEAD_CASES
    if args.only:
        unknown = set(args.only.split(",")) - set(cases)
        if unknown:
            sys.exit(f"race.py: --only: unknown case(s) {sorted(unknown)}; expected some of {sorted(cases)}")
        cases = {k: v for k, v in cases.items() if k in args.only.split(",")}
    modes = ["off", "on"] if args.race == "python" else ["off"]
    other = "python" if args.race == "python" else "minimal"
    write_tables(args.race, args.repetitions, race(args, cases, modes, other), args.out)


if __name__ == "__main__":
    main()
