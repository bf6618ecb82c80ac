#!/usr/bin/env python3
"""Unit tests of the choices of plots/plot.py and its comparison_figures.py, on made-up summaries:
which colour a ratio bar gets, which summary it refuses to draw, what it says when there is
nothing to draw, and which of compare's rows are starred.
Exit 77 (skipped) when this python has no matplotlib.
Usage: plot_test.py SOURCE_DIR
"""
import collections
import contextlib
import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest

try:
    import matplotlib.colors
except ImportError:
    print(f"no matplotlib in {sys.executable}")
    sys.exit(77)

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
SOURCE_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(__file__))
sys.path.insert(0, os.path.join(SOURCE_DIR, "plots"))  # plot.py's own modules, as run as a script
spec = importlib.util.spec_from_file_location("plot", os.path.join(SOURCE_DIR, "plots", "plot.py"))
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)
import comparison_figures  # noqa: E402


@contextlib.contextmanager
def figure_kept(module):
    """Within it, `module`'s figures are kept in the dict it yields (key "fig") instead of saved."""
    figures = {}
    saved = module.save
    module.save = lambda fig, folder, name, written: figures.update(fig=fig)
    try:
        yield figures
    finally:
        module.save = saved


def comparison(label, metric, estimate, low, high, undercovers=False, runs=3, pairs=0, q=1.0):
    return {"workload": "w", "label": label, "status": "ok", "claims": [],
            "metrics": {metric: {"defined": True, "estimate": estimate, "low": low, "high": high,
                                 "n_baseline": runs, "n_variant": runs, "paired": pairs > 0,
                                 "pairs": pairs, "undercovers": undercovers,
                                 "no_interval": runs < 2, "q_value": q}}}


# What ratio_bars drew: each bar's face colour (top to bottom), the legend's (text, colour)
# entries, and the x axis's label.
Drawn = collections.namedtuple("Drawn", "colours legend xlabel labels")


def draw_bars(metric, comparisons, page_fault_shifts=()):
    with figure_kept(plot) as figures:
        summary = {"suite": "s", "device": "cpu", "started_at": "2026-12-03",
                   "comparisons": comparisons, "page_fault_shifts": list(page_fault_shifts)}
        plot.ratio_bars(summary, metric, "x", "speedup", "unused", [])
    ax = figures["fig"].axes[0]
    bars = sorted((p for p in ax.patches if p.get_height() > 0), key=lambda p: -p.get_y())
    figure = figures["fig"]
    legend = figure.legends[0]
    # The legend sits outside the axis: it covers no bar.
    figure.canvas.draw()
    assert not legend.get_window_extent().overlaps(ax.get_window_extent()), "legend on the bars"
    entries = [(t.get_text(), matplotlib.colors.to_hex(h.get_facecolor()))
               for t, h in zip(legend.get_texts(), legend.legend_handles)]
    drawn = Drawn([matplotlib.colors.to_hex(b.get_facecolor()) for b in bars], entries,
                  ax.get_xlabel(), [t.get_text() for t in ax.get_yticklabels()])
    plot.plt.close(ax.figure)
    return drawn


def legend_of(*sides):
    return [(plot.INTERVAL_LABELS[side], plot.INTERVAL_COLORS[side]) for side in sides]


class IntervalSideTest(unittest.TestCase):
    def test_an_interval_wholly_beyond_1x_is_better_or_worse_by_the_metric(self):
        self.assertEqual(plot.interval_side(1.05, 1.3, higher_is_better=True), "better")
        self.assertEqual(plot.interval_side(0.7, 0.95, higher_is_better=True), "worse")
        self.assertEqual(plot.interval_side(0.5, 0.5, higher_is_better=False), "better")
        self.assertEqual(plot.interval_side(1.2, 1.2, higher_is_better=False), "worse")

    def test_an_interval_that_reaches_1x_is_unclear_whatever_its_median(self):
        self.assertEqual(plot.interval_side(0.9, 1.4, higher_is_better=True), "unclear")
        self.assertEqual(plot.interval_side(1.0, 1.4, higher_is_better=True), "unclear")
        self.assertEqual(plot.interval_side(1.0, 1.0, higher_is_better=False), "unclear")


class RatioBarsTest(unittest.TestCase):
    def test_each_bar_takes_the_colour_of_its_interval_and_the_legend_names_those_shown(self):
        colours, legend, _, _ = draw_bars("throughput", [
            comparison("faster", "throughput", 1.2, 1.1, 1.3),
            comparison("noisy", "throughput", 1.15, 0.9, 1.3),
            comparison("slower", "throughput", 0.8, 0.7, 0.9)])
        c = plot.INTERVAL_COLORS
        self.assertEqual(colours, [c["better"], c["unclear"], c["worse"]])
        self.assertEqual(legend, legend_of("better", "worse", "unclear"))

    def test_less_memory_is_better(self):
        colours, legend, _, _ = draw_bars("step_bytes", [
            comparison("smaller", "step_bytes", 0.5, 0.5, 0.5),
            comparison("larger", "step_bytes", 1.3, 1.3, 1.3)])
        c = plot.INTERVAL_COLORS
        self.assertEqual(colours, [c["better"], c["worse"]])
        self.assertEqual(legend, legend_of("better", "worse"))

    def test_one_run_a_side_has_no_interval_and_its_bar_stays_grey(self):
        colours, legend, _, _ = draw_bars("throughput", [
            comparison("once", "throughput", 1.5, 1.5, 1.5, undercovers=True, runs=1)])
        self.assertEqual(colours, [plot.INTERVAL_COLORS["unclear"]])
        self.assertEqual(legend, legend_of("unclear"))


class FewRunsNoteTest(unittest.TestCase):
    def test_the_axis_says_how_often_an_interval_that_undercovers_holds(self):
        drawn = draw_bars("throughput", [comparison("a", "throughput", 1.2, 1.1, 1.3),
                                         comparison("b", "throughput", 1.2, 1.1, 1.3,
                                                    undercovers=True)])
        self.assertIn(plot.FEW_RUNS_NOTE, drawn.xlabel)

    def test_a_bar_says_how_many_pairs_or_runs_a_side_its_interval_stands_on(self):
        drawn = draw_bars("throughput", [comparison("paired", "throughput", 1.2, 1.1, 1.3,
                                                    runs=5, pairs=4),
                                         comparison("apart", "throughput", 1.2, 1.1, 1.3)])
        self.assertEqual(sorted(drawn.labels), ["w / apart (n=3/3)", "w / paired (pairs=4)"])

    def test_a_star_marks_an_interval_that_keeps_q_under_5_percent(self):
        drawn = draw_bars("throughput", [
            comparison("found", "throughput", 1.2, 1.1, 1.3, pairs=5, q=0.01),
            comparison("alone", "throughput", 1.2, 1.02, 1.3, pairs=5, q=0.08)])
        self.assertEqual(sorted(drawn.labels), ["w / alone (pairs=5)", "w / found (pairs=5) *"])
        self.assertIn(plot.DISCOVERY_NOTE, drawn.xlabel)
        # As in the report, q singles out throughput ratios only.
        memory = draw_bars("step_bytes", [comparison("smaller", "step_bytes", 0.5, 0.49, 0.51, q=0)])
        self.assertEqual(memory.labels, ["w / smaller (n=3/3)"])
        self.assertNotIn(plot.DISCOVERY_NOTE, memory.xlabel)

    def test_a_dagger_marks_a_throughput_ratio_whose_page_faults_moved(self):
        shifts = [{"workload": "w", "technique": "moved", "baseline_per_step": 11,
                   "variant_per_step": 1495}]
        drawn = draw_bars("throughput", [comparison("moved", "throughput", 0.95, 0.93, 0.97),
                                         comparison("still", "throughput", 1.0, 0.98, 1.02)],
                          shifts)
        self.assertEqual(sorted(drawn.labels),
                         ["w / moved (n=3/3) \N{DAGGER}", "w / still (n=3/3)"])
        self.assertIn(plot.ALLOCATOR_NOTE, drawn.xlabel)
        # The faults speak to time, not to tensor memory: the memory bars stay unmarked.
        memory = draw_bars("step_bytes", [comparison("moved", "step_bytes", 1, 1, 1)], shifts)
        self.assertEqual(memory.labels, ["w / moved (n=3/3)"])
        self.assertNotIn(plot.ALLOCATOR_NOTE, memory.xlabel)

    def test_not_where_no_interval_undercovers(self):
        drawn = draw_bars("throughput", [comparison("a", "throughput", 1.2, 1.1, 1.3)])
        self.assertNotIn(plot.FEW_RUNS_NOTE, drawn.xlabel)


class StaleSummaryTest(unittest.TestCase):
    def test_a_summary_of_fewer_records_than_the_folder_has_is_refused(self):
        error = plot.stale_summary_error({"records": 2}, [{}, {}, {}], "r/summary.json")
        self.assertEqual(error, "r/summary.json counts 2 records but runs.jsonl has 3: "
                                "run `speedbench report DIR` again first")

    def test_a_summary_of_these_records_is_drawn(self):
        self.assertEqual(plot.stale_summary_error({"records": 3}, [{}, {}, {}], "s"), "")


class NotARunFolderTest(unittest.TestCase):
    def error_of(self, path):
        printed = io.StringIO()
        with contextlib.redirect_stderr(printed):
            self.assertEqual(plot.main(["plot.py", path]), 2)
        return printed.getvalue()

    def test_a_file_or_a_missing_folder_is_named_as_such(self):
        with tempfile.TemporaryDirectory() as folder:
            suite = os.path.join(folder, "suite.json")
            with open(suite, "w") as f:
                f.write("{}")
            self.assertEqual(self.error_of(suite),
                             f"plot.py: error: {suite}: a file; expected a run folder "
                             "(results/<suite>/<run-id>/) that `speedbench report` has written "
                             "to\n")
            self.assertIn(": no such folder; expected a run folder",
                          self.error_of(os.path.join(folder, "nothing")))


class NothingToDrawTest(unittest.TestCase):
    def test_a_folder_with_nothing_to_draw_says_so_and_leaves_no_plots_folder(self):
        record = {"status": "ok", "workload": "w", "variant": "baseline", "repetition": 0,
                  "metrics": {"curve": [{"wall_s": 1.0, "test_accuracy": 0.5}],
                              "step_lrs": [0.1, 0.1]}}
        with tempfile.TemporaryDirectory() as run_folder:
            with open(os.path.join(run_folder, "summary.json"), "w") as f:
                json.dump({"suite": "adhoc", "device": "cpu", "records": 1, "comparisons": []}, f)
            with open(os.path.join(run_folder, "runs.jsonl"), "w") as f:
                f.write(json.dumps(record) + "\n")
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                self.assertEqual(plot.main(["plot.py", run_folder]), 0)
            self.assertTrue(printed.getvalue().startswith(
                f"plot.py: nothing to draw in {run_folder}: no comparison with a defined ratio"))
            self.assertFalse(os.path.exists(os.path.join(run_folder, "plots")))


def curve_record(workload, variant):
    return {"status": "ok", "workload": workload, "variant": variant, "repetition": 0,
            "metrics": {"curve": [{"wall_s": 1.0, "test_accuracy": 0.5},
                                  {"wall_s": 2.0, "test_accuracy": 0.6}]}}


class VariantStylesTest(unittest.TestCase):
    def test_no_two_of_seventeen_variants_look_alike_and_baselines_are_black(self):
        others = [f"v{i:02d}" for i in range(15)]
        styles = plot.variant_styles(["baseline", "without_debug_off"] + others,
                                     {"baseline", "without_debug_off"})
        self.assertEqual(len({(s["color"], s["ls"]) for s in styles.values()}), 17)
        self.assertEqual({styles["baseline"]["color"], styles["without_debug_off"]["color"]},
                         {"black"})
        self.assertNotEqual(styles["baseline"]["ls"], styles["without_debug_off"]["ls"])
        # The eleventh non-baseline variant takes the first one's colour, with another dash.
        self.assertEqual(styles["v10"]["color"], styles["v00"]["color"])
        self.assertNotEqual(styles["v10"]["ls"], styles["v00"]["ls"])

    def test_a_variant_looks_the_same_in_every_panel_of_time_to_accuracy(self):
        records = [curve_record("w1", v) for v in ("baseline", "amp", "zero_grad_none")]
        records += [curve_record("w2", v) for v in ("baseline", "zero_grad_none")]
        with figure_kept(plot) as figures:
            summary = {"suite": "s", "device": "cpu", "started_at": "2026-12-05",
                       "comparisons": [{"baseline": "baseline"}]}
            plot.time_to_accuracy(summary, records, "unused", [])
        looks = [{line.get_label().split(" ")[0]: (matplotlib.colors.to_hex(line.get_color()),
                                                   line.get_linestyle())
                  for line in ax.get_lines()} for ax in figures["fig"].axes]
        plot.plt.close(figures["fig"])
        self.assertEqual(looks[0]["zero_grad_none"], looks[1]["zero_grad_none"])
        self.assertNotEqual(looks[0]["zero_grad_none"], looks[0]["amp"])
        self.assertEqual(looks[1]["baseline"], ("#000000", "-"))


def interval(estimate, low, high):
    return {"estimate": estimate, "low": low, "high": high}


def drawn_comparison(draw, comparison_json):
    """The y labels and x label of compare's variants or effects figure."""
    with figure_kept(comparison_figures) as figures:
        draw(comparison_json, "unused/compare", [])
    ax = figures["fig"].axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    plot.plt.close(figures["fig"])
    return labels, ax.get_xlabel()


class CompareStarTest(unittest.TestCase):
    """compare's rows carry q as the report's do: a star marks q < 0.05 in both figures."""
    COMPARISON = {
        "before": {"folder": "a"}, "after": {"folder": "b"}, "metric": "throughput",
        "tolerance": 0.05,
        "variants": [
            {"workload": "w", "variant": "fast", "n_before": 5, "n_after": 5, "verdict": "improved",
             "change": interval(1.3, 1.2, 1.4), "q_value": 0.01},
            {"workload": "w", "variant": "same", "n_before": 5, "n_after": 5,
             "verdict": "unchanged", "change": interval(1.0, 0.98, 1.02), "q_value": 0.9}],
        "effects": [
            {"workload": "w", "label": "fast", "verdict": "improved", "q_value": 0.02,
             "before": interval(1.2, 1.1, 1.3), "after": interval(1.5, 1.4, 1.6),
             "change": interval(1.25, 1.1, 1.4)},
            {"workload": "w", "label": "apart", "verdict": "inconclusive",  # no test: no q
             "before": interval(1.2, 1.0, 1.4), "after": interval(1.3, 1.0, 1.6),
             "change": interval(1.08, 0.8, 1.5)}]}

    def test_variants(self):
        labels, xlabel = drawn_comparison(comparison_figures.compare_variants, self.COMPARISON)
        self.assertEqual(sorted(labels), ["w / fast (n=5/5) *", "w / same (n=5/5)"])
        self.assertIn("*: q < 0.05 (p adjusted for all the variants together)", xlabel)

    def test_effects(self):
        labels, xlabel = drawn_comparison(comparison_figures.compare_effects, self.COMPARISON)
        self.assertEqual(sorted(labels), ["w / apart (inconclusive)", "w / fast (improved) *"])
        self.assertIn("*: q < 0.05 (p adjusted for all the effect changes together)", xlabel)

    def test_no_note_without_a_star(self):
        quiet = dict(self.COMPARISON, effects=self.COMPARISON["effects"][1:])
        labels, xlabel = drawn_comparison(comparison_figures.compare_effects, quiet)
        self.assertEqual(labels, ["w / apart (inconclusive)"])
        self.assertNotIn("q < 0.05", xlabel)


if __name__ == "__main__":
    unittest.main()
