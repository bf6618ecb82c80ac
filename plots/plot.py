#!/usr/bin/env python3
"""Plots of one speedbench run folder: PNG and SVG files in DIR/plots/.

Usage: plots/plot.py RESULTS_DIR | --compare COMPARE.json   (with the project's venv python;
       scripts/plot finds it)

Reads DIR/summary.json (written by `speedbench report DIR`; refused when it counts other records
than DIR/runs.jsonl holds, as after a --resume) and DIR/runs.jsonl, and writes:
  speedup.*            throughput ratio per technique with its 95% interval; claimed ratios marked;
                       a bar is green or red only where its interval lies wholly on one side of
                       1x, else grey; the axis says so where a side had fewer than 5 runs, as
                       such an interval holds the true ratio about 9 times in 10
  memory.*             training-memory ratio (peak above data and model) with its 95% interval,
                       coloured the same way (lower is better)
  time_to_accuracy.*   test accuracy against wall time, median and range over repetitions; a
                       variant looks the same in every panel, baselines are black
  lr_schedule.*        the learning rate of every step, one line per variant (first repetition)
  lr_finder.*          the LR range test's curve, for each lr_find*.json in DIR
Each figure names the suite, device and date; axes carry units and every bar its n.
With --compare, the JSON of `speedbench compare --json FILE` instead, and next to it:
  FILE-variants.*      after / before per variant with its 95% interval, the tolerance shaded
  FILE-effects.*       each technique's ratio to its baseline in both folders, side by side
"""
import json
import os
import sys
import warnings

import matplotlib.patches
import numpy as np

from comparison_figures import plot_comparison
from drawing import DISCOVERY_MARK, plt, ratio_axis, save


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def title(summary, what):
    date = summary.get("started_at", "")[:10]
    return f"{what}: suite {summary['suite']}, {summary['device']}, {date}"


# A bar's colour says what its 95% interval shows, not which side of 1x its median fell on: a
# bar whose interval reaches across 1x is grey, however long.
INTERVAL_COLORS = {"better": "#4c9a2a", "worse": "#c0504d", "unclear": "#a6a6a6"}
INTERVAL_LABELS = {"better": "interval wholly on the better side of 1x",
                   "worse": "interval wholly on the worse side of 1x",
                   "unclear": "interval includes 1x"}


# What a bar of the report's ratios is: the report pairs runs by repetition where they pair.
RATIO_NOTE = "(x, 95% CI; pairs=N: geometric mean of paired ratios; n=B/V: ratio of medians)"

# For a metric whose intervals the report marks `undercovers` (unpaired, under kMinRunsPerSide =
# 5 runs a side, and they vary; see its "Measurement health").
FEW_RUNS_NOTE = ("under 5 unpaired runs a side, a 95% interval holds the true ratio about 9 "
                 "times in 10")


# A throughput bar is starred (DISCOVERY_MARK) where its interval still excludes 1x once adjusted
# for the report's many throughput comparisons (its q, as the report's Summary has it; memory is
# near exact: its intervals have next to no chance to adjust for).
DISCOVERY_NOTE = "*: q < 0.05 (p adjusted for all the report's throughput ratios together)"


# A throughput bar is marked (ALLOCATOR_MARK) where the report lists its comparison among those
# whose page faults moved with the variant (summary.json's page_fault_shifts): the host
# allocator may have made part of its ratio, the same in every repetition.
ALLOCATOR_MARK = " \N{DAGGER}"
ALLOCATOR_NOTE = "\N{DAGGER}: page faults moved with the variant: the allocator may be in the ratio"


def page_fault_shifted(summary):
    """(workload, technique) of each comparison the report lists as page-fault shifted."""
    return {(s["workload"], s["technique"]) for s in summary.get("page_fault_shifts", [])}


def is_discovery(metric, m):
    return metric == "throughput" and m.get("q_value", 1) < 0.05


def interval_side(low, high, higher_is_better):
    """"better" or "worse" when the interval [low, high] lies wholly on one side of 1x, else
    "unclear" (an interval that touches 1x, as a zero-width one at exactly 1x does, included)."""
    if low > 1:
        return "better" if higher_is_better else "worse"
    if high < 1:
        return "worse" if higher_is_better else "better"
    return "unclear"


def ratio_bars(summary, metric, xlabel, name, folder, written):
    """One horizontal bar per (workload, technique) with the metric's ratio and interval."""
    rows = []
    shifted = page_fault_shifted(summary) if metric == "throughput" else set()
    for c in summary["comparisons"]:
        m = c.get("metrics", {}).get(metric)
        if c["status"] != "ok" or not m or not m.get("defined"):
            continue
        claimed = [cl["threshold"] for cl in c.get("claims", []) if cl["metric"] == metric]
        runs = f"pairs={m['pairs']}" if m.get("paired") else f"n={m['n_baseline']}/{m['n_variant']}"
        label = f"{c['workload']} / {c['label']} ({runs})"
        if is_discovery(metric, m):
            label += DISCOVERY_MARK
            if DISCOVERY_NOTE not in xlabel:
                xlabel += "\n" + DISCOVERY_NOTE
        if (c["workload"], c["label"]) in shifted:
            label += ALLOCATOR_MARK
            if ALLOCATOR_NOTE not in xlabel:
                xlabel += "\n" + ALLOCATOR_NOTE
        # One run on a side has no interval (its [x, x] is a point): the bar stays grey.
        rows.append((label, m["estimate"], m["low"], m["high"], claimed,
                     m.get("no_interval", False)))
        # (a summary.json written before the mark has none: `speedbench report DIR` adds it)
        if m.get("undercovers", False) and FEW_RUNS_NOTE not in xlabel:
            xlabel += "\n" + FEW_RUNS_NOTE
    if not rows:
        return
    sides = ["unclear" if r[5] else interval_side(r[2], r[3], higher_is_better=metric == "throughput")
             for r in rows]
    shown = [side for side in INTERVAL_COLORS if side in sides]
    claimed = any(r[4] for r in rows)
    # The legend goes under the axis, outside it (a constrained layout makes room): it covers no
    # bar and leaves no empty band between them. Two entries a line.
    legend_lines = (len(shown) + claimed + 1) // 2
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(rows) + 1.6 + 0.22 * legend_lines),
                           layout="constrained")
    y = np.arange(len(rows))[::-1]
    estimates = np.array([r[1] for r in rows])
    errors = np.array([[r[1] - r[2] for r in rows], [r[3] - r[1] for r in rows]])
    ax.barh(y, estimates - 1, left=1, color=[INTERVAL_COLORS[side] for side in sides], alpha=0.8)
    ax.errorbar(estimates, y, xerr=errors, fmt="none", ecolor="black", capsize=3, lw=1)
    marked = False
    for yi, row in zip(y, rows):
        for threshold in row[4]:
            ax.plot([threshold], [yi], marker="D", color="#1f4e79", ms=6,
                    label=None if marked else "claimed ratio")
            marked = True
    ratio_axis(ax, y, [r[0] for r in rows], xlabel)
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.set_title(title(summary, name.replace("_", " ")), fontsize=10)
    handles, _ = ax.get_legend_handles_labels()  # the claimed ratio's, if marked
    handles += [matplotlib.patches.Patch(color=INTERVAL_COLORS[side], alpha=0.8,
                                         label=INTERVAL_LABELS[side]) for side in shown]
    fig.legend(handles=handles, loc="outside lower center", ncol=2, fontsize=8, frameon=False)
    save(fig, folder, name, written)


# tab10's colours, then the same colours dashed, dotted, dash-dotted: a legend of more than ten
# lines (cpu-full's ResNet-8 panel has 15) otherwise repeats a colour for two variants.
LINE_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")
LINE_DASHES = ("-", "--", ":", "-.")


def variant_styles(variants, baselines):
    """Variant -> plot() keywords: one look per variant in every panel of a figure, no two alike.
    Baselines (what the summary compares variants against) are black and drawn thicker, each
    with its own dash; the others take LINE_COLORS, then the same colours with the next dash."""
    styles = {}
    drawn_baselines = sorted(v for v in set(variants) if v in baselines)
    for i, variant in enumerate(drawn_baselines):
        styles[variant] = {"color": "black", "ls": LINE_DASHES[i % len(LINE_DASHES)], "lw": 2.0}
    others = sorted(v for v in set(variants) if v not in baselines)
    for i, variant in enumerate(others):
        dash = LINE_DASHES[(i // len(LINE_COLORS)) % len(LINE_DASHES)]
        styles[variant] = {"color": LINE_COLORS[i % len(LINE_COLORS)], "ls": dash, "lw": 1.3}
    return styles


def baseline_variants(summary):
    """The variants that the summary's comparisons use as baselines ("baseline" where it has none)."""
    return {c["baseline"] for c in summary.get("comparisons", []) if c.get("baseline")} or {"baseline"}


def time_to_accuracy(summary, records, folder, written):
    """Accuracy vs wall time per variant: median over repetitions, band from min to max."""
    curves = {}
    for r in records:
        points = r["metrics"].get("curve", [])
        if r["status"] != "ok" or len(points) < 2:
            continue
        curves.setdefault(r["workload"], {}).setdefault(r["variant"], []).append(points)
    if not curves:
        return
    styles = variant_styles([v for variants in curves.values() for v in variants],
                            baseline_variants(summary))
    fig, axes = plt.subplots(1, len(curves), figsize=(6 * len(curves), 6.4), squeeze=False)
    for ax, (workload, variants) in zip(axes[0], sorted(curves.items())):
        for variant, runs in sorted(variants.items()):
            end = max(p["wall_s"] for run in runs for p in run)
            grid = np.linspace(0, end, 200)
            # Accuracy known at time t: the last evaluation at or before t (NaN before the first).
            values = []
            for run in runs:
                times = np.array([p["wall_s"] for p in run])
                acc = np.array([p["test_accuracy"] for p in run])
                index = np.searchsorted(times, grid, side="right") - 1
                values.append(np.where(index >= 0, acc[np.clip(index, 0, None)], np.nan))
            values = np.array(values)
            with warnings.catch_warnings():  # before a run's first evaluation every value is NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                ax.plot(grid, np.nanmedian(values, axis=0), label=f"{variant} (n={len(runs)})",
                        **styles[variant])
                ax.fill_between(grid, np.nanmin(values, axis=0), np.nanmax(values, axis=0),
                                color=styles[variant]["color"], alpha=0.12)
        target = next((r["metrics"]["target_accuracy"] for r in records
                       if r["workload"] == workload and r["metrics"].get("target_accuracy", 0) > 0), 0)
        if target:
            ax.axhline(target, color="grey", ls="--", lw=1, label=f"target {target:g}")
        ax.set_xlabel("wall time since the first step, evaluations included (s)")
        ax.set_ylabel("test accuracy (fraction)")
        ax.set_title(f"{workload}", fontsize=10)
        # Under the panel, not over its curves.
        ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.suptitle(title(summary, "time to accuracy"), fontsize=10)
    save(fig, folder, "time_to_accuracy", written)


def lr_schedules(summary, records, folder, written):
    """The LR of every step, first repetition of each variant whose LR changes or differs."""
    lines = {}
    for r in records:
        lrs = r["metrics"].get("step_lrs", [])
        if r["status"] == "ok" and r["repetition"] == 0 and lrs:
            lines[f"{r['workload']} / {r['variant']}"] = lrs
    varying = {k: v for k, v in lines.items() if max(v) > min(v)}
    if not varying:
        return
    fig, ax = plt.subplots(figsize=(8, 4))
    styles = variant_styles(varying, baselines=set())
    for label, lrs in sorted(varying.items()):
        ax.plot(np.arange(1, len(lrs) + 1), lrs, label=label, **styles[label])
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("learning rate")
    ax.set_title(title(summary, "LR schedules"), fontsize=10)
    ax.legend(fontsize=7)
    save(fig, folder, "lr_schedule", written)


def lr_finders(summary, run_folder, folder, written):
    for name in sorted(os.listdir(run_folder)):
        if not (name.startswith("lr_find") and name.endswith(".json")):
            continue
        with open(os.path.join(run_folder, name)) as f:
            curve = json.load(f)
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot(curve["lrs"], curve["smoothed_losses"], label="smoothed loss")
        ax.plot(curve["lrs"], curve["losses"], alpha=0.3, label="loss")
        ax.axvline(curve["suggested_lr"], color="grey", ls="--",
                   label=f"suggested peak {curve['suggested_lr']:.3g}")
        ax.set_xscale("log")
        ax.set_xlabel("learning rate (log scale)")
        ax.set_ylabel("training loss (nats)")
        ax.set_title(title(summary, "LR range test"), fontsize=10)
        ax.legend(fontsize=8)
        save(fig, folder, os.path.splitext(name)[0], written)


def stale_summary_error(summary, records, summary_path):
    """Why summary.json cannot be drawn with these records ("" when it can): the ratio bars read
    the summary and the accuracy curves the records, so a summary written before a --resume
    added records would put two different sets of runs side by side."""
    counted = summary.get("records")
    if counted is None or counted == len(records):
        return ""
    return (f"{summary_path} counts {counted} records but runs.jsonl has {len(records)}: "
            f"run `speedbench report DIR` again first")


def main(argv):
    if len(argv) == 3 and argv[1] == "--compare":
        return plot_comparison(argv[2])
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    run_folder = argv[1]
    if not os.path.isdir(run_folder):
        what = "a file" if os.path.exists(run_folder) else "no such folder"
        print(f"plot.py: error: {run_folder}: {what}; expected a run folder "
              "(results/<suite>/<run-id>/) that `speedbench report` has written to",
              file=sys.stderr)
        return 2
    summary_path = os.path.join(run_folder, "summary.json")
    records_path = os.path.join(run_folder, "runs.jsonl")
    for path in (summary_path, records_path):
        if not os.path.exists(path):
            hint = " (run `speedbench report DIR` first)" if path == summary_path else ""
            print(f"plot.py: error: {path} does not exist{hint}", file=sys.stderr)
            return 2
    with open(summary_path) as f:
        summary = json.load(f)
    records = read_jsonl(records_path)
    stale = stale_summary_error(summary, records, summary_path)
    if stale:
        print(f"plot.py: error: {stale}", file=sys.stderr)
        return 2
    folder = os.path.join(run_folder, "plots")
    written = []
    ratio_bars(summary, "throughput", "throughput, variant / baseline\n" + RATIO_NOTE, "speedup",
               folder, written)
    ratio_bars(summary, "step_bytes",
               "training memory above data and model, variant / baseline\n" + RATIO_NOTE,
               "memory", folder, written)
    time_to_accuracy(summary, records, folder, written)
    lr_schedules(summary, records, folder, written)
    lr_finders(summary, run_folder, folder, written)
    for path in written:
        print(path)
    if not written:  # say so: no output would look like a failure
        print(f"plot.py: nothing to draw in {run_folder}: no comparison with a defined ratio, no "
              f"run evaluated twice or more, no varying learning rate, no lr_find*.json")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
