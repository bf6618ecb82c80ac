"""Figures of `speedbench compare --json FILE`, written next to it: FILE-variants.* (after /
before per variant with its 95% interval, the tolerance shaded) and FILE-effects.* (each
technique's ratio to its baseline in both folders, side by side). plots/plot.py --compare
draws them."""
import json
import os
import sys

import numpy as np

from drawing import DISCOVERY_MARK, plt, ratio_axis, save


def compare_title(comparison, what):
    before = comparison["before"]["folder"].rstrip("/")
    after = comparison["after"]["folder"].rstrip("/")
    return f"{what}, {comparison['metric']}\nbefore {before}\nafter {after}"


def interval_row(interval):
    return interval["estimate"], interval["low"], interval["high"]


def starred(label, entry):
    """A compare row's label, starred where its q (p adjusted over its table) is under 0.05."""
    return label + DISCOVERY_MARK if entry.get("q_value", 1) < 0.05 else label


def star_note(labels, family):
    return f"\n*: q < 0.05 (p adjusted for all the {family} together)" if any(
        label.endswith(DISCOVERY_MARK) for label in labels) else ""


def compare_variants(comparison, stem, written):
    """after / before per variant with its interval; the tolerance band shaded."""
    # "pairs" where the two folders are one `run --against`: a geometric mean over back-to-back
    # pairs with a t interval, not a ratio of medians.
    rows = [(starred(f"{v['workload']} / {v['variant']} "
                     f"({'pairs' if v.get('paired') else 'n'}={v['n_before']}/{v['n_after']})", v),
             *interval_row(v["change"]), v["verdict"])
            for v in comparison["variants"] if "change" in v]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(9, 0.32 * len(rows) + 2.0))
    y = np.arange(len(rows))[::-1]
    tolerance = comparison["tolerance"]
    ax.axvspan(1 - tolerance, 1 + tolerance, color="#dddddd", label=f"tolerance +-{tolerance:g}")
    colors = {"regressed": "#c0504d", "improved": "#4c9a2a"}
    for yi, (_, estimate, low, high, verdict) in zip(y, rows):
        ax.errorbar([estimate], [yi], xerr=[[estimate - low], [high - estimate]], fmt="o",
                    color=colors.get(verdict, "#555555"), capsize=3, lw=1)
    labels = [r[0] for r in rows]
    ratio_axis(ax, y, labels, "after / before (x, with 95% CI; red: regressed, green: improved)"
               + star_note(labels, "variants"))
    ax.set_title(compare_title(comparison, "variants, after / before"), fontsize=9)
    ax.legend(loc="best", fontsize=8)
    save(fig, os.path.dirname(stem) or ".", os.path.basename(stem) + "-variants", written)


def compare_effects(comparison, stem, written):
    """Each technique's ratio to its baseline in both folders, side by side."""
    rows = [(starred(f"{e['workload']} / {e['label']} ({e['verdict']})", e),
             interval_row(e["before"]), interval_row(e["after"]))
            for e in comparison["effects"] if "change" in e]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(9, 0.5 * len(rows) + 2.0))
    y = np.arange(len(rows))[::-1]
    for offset, side, color in ((0.15, 1, "#7f7f7f"), (-0.15, 2, "#1f4e79")):
        estimates = np.array([r[side][0] for r in rows])
        errors = np.array([[r[side][0] - r[side][1] for r in rows],
                           [r[side][2] - r[side][0] for r in rows]])
        ax.errorbar(estimates, y + offset, xerr=errors, fmt="o", color=color, capsize=3, lw=1,
                    label="before" if side == 1 else "after")
    labels = [r[0] for r in rows]
    ratio_axis(ax, y, labels, "variant / baseline (x, with 95% CI)"
               + star_note(labels, "effect changes"))
    ax.set_title(compare_title(comparison, "technique effects"), fontsize=9)
    ax.legend(loc="best", fontsize=8)
    save(fig, os.path.dirname(stem) or ".", os.path.basename(stem) + "-effects", written)


def plot_comparison(path):
    """Figures of `speedbench compare --json PATH`, next to it: <name>-variants, <name>-effects."""
    if not os.path.exists(path):
        print(f"plot.py: error: {path} does not exist (write it with `speedbench compare BEFORE "
              "AFTER --json FILE`)", file=sys.stderr)
        return 2
    with open(path) as f:
        comparison = json.load(f)
    if "variants" not in comparison or "effects" not in comparison:
        print(f"plot.py: error: {path} is not the JSON of `speedbench compare --json`",
              file=sys.stderr)
        return 2
    stem = os.path.splitext(path)[0]
    written = []
    compare_variants(comparison, stem, written)
    compare_effects(comparison, stem, written)
    for written_path in written:
        print(written_path)
    return 0
