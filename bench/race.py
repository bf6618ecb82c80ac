#!/usr/bin/env python3
"""Side-by-side races, interleaved, with bootstrap intervals (issue: is the harness itself fast?).

  --race python    speedbench run-one vs bench/python_parity/train.py (the same config, the
                   same torch 2.11: the wheel's LibTorch is what the C++ build links), for
                   ResNet-8 batch 128 and 16, row-LSTM batch 32, char-LM batch 32, each with all
                   techniques off and with the CPU-applicable ones on. Ratio = speedbench / Python
                   throughput (goal >= 1.0).
  --race overhead  speedbench run-one (all meters on) vs build/.../speedbench_minimal_loop (a
                   hand-written LibTorch loop) on ResNet-8 and the row LSTM at batch 128.
                   Ratio = harness step time / minimal step time (goal <= 1.01).

Every process trains one run; repetition r uses seed r on both sides; the sides alternate (which goes first flips every repetition) so
that machine drift hits both. Prints a markdown table and writes race.md and race.json to --out.
Usage: race.py --race python|overhead [--repetitions 5] [--only CASE,...] [--out DIR]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

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
    subprocess.run([speedbench, "run-one", "--config", config_path, "--records", records, "--quiet",
                    "--brief"], check=True, stdout=subprocess.DEVNULL)
    with open(records) as f:
        record = json.loads(f.read().splitlines()[-1])
    if record["status"] != "ok":
        sys.exit(f"race.py: speedbench run {config_path} ended {record['status']}: {record['message']}")
    m = record["metrics"]
    return {"samples_per_s": m["samples_per_s"], "test_accuracy": m["final_test_accuracy"]}


def run_json_line(command):
    out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def bootstrap_ratio(numerator, denominator, resamples=10000, seed=0):
    """median(numerator)/median(denominator) with a percentile-bootstrap 95% interval (the
    report's statistic for runs that do not pair, harness/measure/statistics.h; the race's two
    sides of a repetition run back to back and could pair as the report's runs do)."""
    rng = np.random.default_rng(seed)
    a, b = np.asarray(numerator), np.asarray(denominator)
    ratios = np.median(rng.choice(a, (resamples, len(a))), axis=1) / \
        np.median(rng.choice(b, (resamples, len(b))), axis=1)
    return float(np.median(a) / np.median(b)), float(np.percentile(ratios, 2.5)), float(np.percentile(ratios, 97.5))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--race", choices=["python", "overhead"], required=True)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "race"))
    parser.add_argument("--build", default=os.path.join(ROOT, "build", "default"))
    parser.add_argument("--python", default=sys.executable, help="the python with torch 2.11")
    args = parser.parse_args()
    if args.repetitions < 2:
        sys.exit("race.py: --repetitions must be at least 2 (an interval needs repetitions)")
    speedbench = os.path.join(args.build, "speedbench")
    minimal = os.path.join(args.build, "bench", "speedbench_minimal_loop")
    for tool in [speedbench] + ([minimal] if args.race == "overhead" else []):
        if not os.access(tool, os.X_OK):
            sys.exit(f"race.py: {tool} is missing; build first (cmake --workflow --preset default)")
    cases = PYTHON_CASES if args.race == "python" else OVERHEAD_CASES
    if args.only:
        unknown = set(args.only.split(",")) - set(cases)
        if unknown:
            sys.exit(f"race.py: --only: unknown case(s) {sorted(unknown)}; expected some of {sorted(cases)}")
        cases = {k: v for k, v in cases.items() if k in args.only.split(",")}
    modes = ["off", "on"] if args.race == "python" else ["off"]
    other = "python" if args.race == "python" else "minimal"
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="speedbench-race-")
    samples = {}  # (case, mode, side) -> list of result dicts
    total = args.repetitions * len(cases) * len(modes) * 2
    done, start = 0, time.time()
    for rep in range(args.repetitions):
        for case, (workload, batch, steps, on) in cases.items():
            for mode in modes:
                config_path = os.path.join(work, f"{case}-{mode}.json")
                with open(config_path, "w") as f:
                    # Repetition r uses seed r on both sides: accuracy is compared over seeds.
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

    rows, table = [], []
    for case in cases:
        for mode in modes:
            ours = [r["samples_per_s"] for r in samples[(case, mode, "speedbench")]]
            theirs = [r["samples_per_s"] for r in samples[(case, mode, other)]]
            # python race: speedbench / python throughput; overhead: harness / minimal step time.
            ratio = bootstrap_ratio(ours, theirs) if args.race == "python" else bootstrap_ratio(theirs, ours)
            acc_ours = float(np.median([r["test_accuracy"] for r in samples[(case, mode, "speedbench")]]))
            acc_theirs = float(np.median([r["test_accuracy"] for r in samples[(case, mode, other)]]))
            rows.append({"case": case, "techniques": mode, "speedbench_samples_per_s": ours,
                         f"{other}_samples_per_s": theirs, "ratio": ratio[0], "low": ratio[1], "high": ratio[2],
                         "speedbench_accuracy_median": acc_ours, f"{other}_accuracy_median": acc_theirs})
            table.append(f"| {case} | {mode} | {np.median(ours):.0f} | {np.median(theirs):.0f} | "
                         f"{ratio[0]:.3f}x [{ratio[1]:.3f}, {ratio[2]:.3f}] | {acc_ours:.4f} / {acc_theirs:.4f} |")
    what = ("speedbench / Python throughput" if args.race == "python"
            else "harness / minimal-loop step time")
    markdown = (f"# Race: speedbench vs {other} ({args.repetitions} repetitions, interleaved)\n\n"
                f"Ratio = {what}, medians with a bootstrap 95% interval; accuracy = median test accuracy "
                f"after the same steps (speedbench / {other}).\n\n"
                f"| case | techniques | speedbench samples/s | {other} samples/s | ratio | accuracy |\n"
                "|---|---|---|---|---|---|\n" + "\n".join(table) + "\n")
    print(markdown)
    with open(os.path.join(args.out, f"race-{args.race}.md"), "w") as f:
        f.write(markdown)
    with open(os.path.join(args.out, f"race-{args.race}.json"), "w") as f:
        json.dump({"race": args.race, "repetitions": args.repetitions, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
