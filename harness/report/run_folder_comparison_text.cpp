// The text forms of a folder comparison (run_folder_comparison.h): console and markdown.
#include <algorithm>
#include <sstream>
#include <tuple>

#include "harness/report/cpu_contention.h"
#include "harness/report/report_text.h"
#include "harness/report/run_folder_comparison.h"

namespace speedbench::report {

namespace {

// A median in the metric's unit; bytes in MiB.
std::string median_text(double value, const MetricInfo& metric) {
  if (metric.unit == "bytes") return format_number("%.4g", value / (1024.0 * 1024.0)) + " MiB";
  // Whole numbers from 10,000 up: "14890", not "1.489e+04".
  return format_number(value >= 1e4 ? "%.0f" : "%.4g", value) + " " + metric.unit;
}

std::string runs_text(int before, int after) {
  return std::to_string(before) + "/" + std::to_string(after);
}

// A ratio with its interval, "1.5x (a side with 1 run: no interval)" or "-".
std::string ratio_or_dash(const MetricComparison& m, const MetricInfo& metric) {
  return m.defined ? interval_text(&m, metric) : "-";
}

std::string effect_change_text(const EffectChange& e, const MetricInfo& metric) {
  if (!e.defined) return "-";
  return lacks_interval(e.fewest_runs) ? no_interval_text(e.change.estimate, metric)
                                       : ratio_text(e.change);
}

// A p- or q-value to two significant digits (compare quotes small ones, 9.6e-06), or "-" where
// the row has none.
std::string probability_cell(bool defined, double value) {
  return defined ? format_number("%.2g", value) : "-";
}

std::string metric_line(const FolderComparison& c) {
  return c.metric->id + " (" + c.metric->unit + ", " +
         (c.metric->lower_is_better ? "lower" : "higher") + " is better), tolerance " +
         format_number("%g", c.tolerance * 100) + "%";
}

std::string verdict_counts(const FolderComparison& c) {
  std::string text = std::to_string(c.variants.size()) + " variants in both:";
  for (const char* verdict :
       {"improved", "regressed", "failed", "unchanged", "inconclusive", "not_compared"})
    text += std::string(" ") + std::to_string(c.count(verdict)) + " " + verdict + ",";
  text.pop_back();
  return text;
}

// A bootstrap interval from fewer than kMinRunsPerSide runs a side (a paired row's t interval
// keeps its coverage with few pairs).
bool few_runs(const FolderComparison& c) {
  for (const auto& v : c.variants) {
    if (v.change.defined && has_few_unpaired_runs(v.change)) return true;
  }
  return false;
}

// An effect's notes: why it was not compared, or how its change was drawn.
std::string effect_notes(const EffectChange& e) {
  if (e.paired) return "paired by repetition";
  if (e.within_folder_pairs) return "paired within each folder (Welch)";
  return e.reason;
}

// How many compared variants' ratios are over back-to-back pairs of runs (run --against).
int paired_count(const FolderComparison& c) {
  return static_cast<int>(std::count_if(c.variants.begin(), c.variants.end(), [](const auto& v) {
    return v.change.defined && v.change.paired();
  }));
}

std::string paired_line(const FolderComparison& c) {
  const auto paired_effects = std::count_if(c.effects.begin(), c.effects.end(),
                                            [](const EffectChange& e) { return e.paired; });
  return std::to_string(paired_count(c)) + " of " + std::to_string(c.variants.size()) +
         " variants paired run by run (the two folders of one `run --against`: each planned run "
         "made by both binaries back to back): their after / before is the geometric mean of "
         "the pairs' ratios, with a Student-t interval; " +
         std::to_string(paired_effects) + " of " + std::to_string(c.effects.size()) +
         " effect changes paired by repetition the same way";
}

// What the identity comparison cannot see: keys one side's records lack.
std::vector<std::string> unseen_identity_lines(const FolderComparison& c) {
  std::vector<std::string> lines;
  for (const auto& [keys, side, other] :
       {std::make_tuple(&c.identity_keys_only_before, "before", "after"),
        std::make_tuple(&c.identity_keys_only_after, "after", "before")}) {
    if (keys->empty()) continue;
    lines.push_back(std::string("only the ") + side + " records name " + joined(*keys, ", ") +
                    " (the " + other + " ones predate them): the machines may differ there unseen");
  }
  return lines;
}

// The machines' fp32 matmul peaks, set against the variants' own change: "fp32 matmul peak at
// each run's start (512 x 512): 240.1 GFLOP/s before, 296.1 GFLOP/s after (medians of 190 and
// 175 runs), 1.23x [1.16, 1.28]; the variants' throughput after / before: median 1.35x".
std::string machine_speed_text(const FolderComparison& c) {
  const auto& m = c.machine_speed;
  if (!m.peak.defined) return "not compared (" + m.reason + ")";
  std::string text =
      "fp32 matmul peak at each run's start (" + std::to_string(m.matrix_size) + " x " +
      std::to_string(m.matrix_size) + "): " + flop_rate_text(m.peak.baseline_median) + " before, " +
      flop_rate_text(m.peak.variant_median) + " after (medians of " +
      std::to_string(m.peak.n_baseline) + " and " + std::to_string(m.peak.n_variant) + " runs), " +
      (lacks_interval(m.peak) ? no_interval_text(m.peak.interval.estimate, *c.metric)
                              : ratio_text(m.peak.interval));
  std::vector<double> variant_changes;
  for (const auto& v : c.variants) {
    if (v.change.defined) variant_changes.push_back(v.change.interval.estimate);
  }
  if (!variant_changes.empty()) {
    text += "; the variants' " + c.metric->id + " after / before: median " +
            format_number("%.3g", measure::summarize(variant_changes).median) + "x";
  }
  return text;
}

// The measures of what held the runs back from the CPU (cpu_contention.h), as compare sets
// them side by side: which values, their text, and how the console and the markdown lead into
// "before ...; after ...".
struct ContentionMeasure {
  std::vector<double> CpuContention::*values;
  std::string (*text)(const CpuContention&);
  const char* console_label;
  const char* markdown_lead;
  const char* markdown_tail;
};

const ContentionMeasure kContentionMeasures[] = {
    {&CpuContention::busy_cores, other_load_text, "other processes' load while the runs trained",
     "Other processes' load while the runs trained (cores they kept busy, as each run measured "
     "it)",
     ". A folder whose runs shared the machine with other work ran slower for it."},
    {&CpuContention::stolen_cores, steal_text, "the hypervisor's steal while the runs trained",
     "The hypervisor's steal while the runs trained (cores of a virtual machine it gave to other "
     "guests)",
     "."},
    {&CpuContention::cpu_wait_threads, cpu_wait_text, "the runs' threads waiting for a CPU",
     "The runs' threads that waited for a CPU while they trained (ready to run, on average; "
     "whatever held them back: other load, their own threads, a CPU quota)",
     "."},
    {&CpuContention::quota_throttled_share, quota_throttling_text,
     "the runs' CPU quota throttling them",
     "The share of the runs' cgroup CPU quota periods in which the quota ran out and stopped them",
     ". A folder whose runs were throttled ran slower for its quota, not for its build."}};

// Both folders' spread of `measure`, or "" where neither measured it (builds before it): "before
// median 0.01 cores, ..., over 111 runs; after median 0.45 cores, ...".
std::string side_by_side(const FolderComparison& c, const ContentionMeasure& measure) {
  if ((c.contention_before.*measure.values).empty() && (c.contention_after.*measure.values).empty())
    return "";
  return "before " + measure.text(c.contention_before) + "; after " +
         measure.text(c.contention_after);
}

// "before 9 of 123 runs flagged (noisy steps: 9); after none of 123 runs flagged".
std::string flagged_side_by_side(const FolderComparison& c) {
  return "before " + flagged_runs_text(c.flagged_before) + "; after " +
         flagged_runs_text(c.flagged_after);
}

// "resnet8/sync_avoidance 11 -> 1328": each variant whose page faults per step moved.
std::vector<std::string> page_fault_shift_items(const FolderComparison& c) {
  std::vector<std::string> items;
  for (const auto& s : c.page_fault_shifts) {
    items.push_back(s.workload + "/" + s.variant + " " + format_number("%.0f", s.before_per_step) +
                    " -> " + format_number("%.0f", s.after_per_step));
  }
  return items;
}

// The first `most` items, and how many more.
std::string first_items(const std::vector<std::string>& items, size_t most) {
  if (items.size() <= most) return joined(items, ", ");
  const std::vector<std::string> first(items.begin(), items.begin() + static_cast<long>(most));
  return joined(first, ", ") + " and " + std::to_string(items.size() - most) + " more";
}

}  // namespace

std::string folder_comparison_console(const FolderComparison& c) {
  std::ostringstream out;
  out << "compare " << metric_line(c) << "\n";
  out << "before: " << c.before_folder << " (suite " << c.before_suite << ", " << c.before_records
      << " records)\n";
  out << "after:  " << c.after_folder << " (suite " << c.after_suite << ", " << c.after_records
      << " records)\n";
  if (!c.identity_differences.empty()) {
    out << "the folders differ in machine or build (the ratios measure that too):\n";
    for (const auto& d : c.identity_differences) {
      out << "  " << d.key << ": " << joined(d.before, ", ") << " before; " << joined(d.after, ", ")
          << " after\n";
    }
  }
  for (const auto& unseen : unseen_identity_lines(c)) out << unseen << "\n";
  out << "machine speed: " << machine_speed_text(c) << "\n";
  for (const auto& measure : kContentionMeasures) {
    if (const auto spread = side_by_side(c, measure); !spread.empty())
      out << measure.console_label << ": " << spread << "\n";
  }
  out << "measurement health: " << flagged_side_by_side(c) << "\n";
  if (!c.page_fault_shifts.empty()) {
    out << "page faults per step moved (part of these variants' change may be the host "
           "allocator's): "
        << first_items(page_fault_shift_items(c), 8) << "\n";
  }
  // The verdict and why, as one last cell: a reason is cut at 100 characters.
  auto verdict_cell = [](const std::string& verdict, const std::string& reason) {
    return reason.empty() ? verdict : verdict + ": " + reason.substr(0, 100);
  };
  out << "\nvariants, after / before:\n";
  std::vector<std::vector<std::string>> rows = {{"workload", "variant", "n", "before median",
                                                 "after median", "after/before [95% CI]", "q",
                                                 "verdict"}};
  for (const auto& v : c.variants) {
    const bool compared = v.change.defined;
    rows.push_back({v.workload, v.variant, runs_text(v.before_ok, v.after_ok),
                    compared ? median_text(v.change.baseline_median, *c.metric) : "-",
                    compared ? median_text(v.change.variant_median, *c.metric) : "-",
                    ratio_or_dash(v.change, *c.metric),
                    probability_cell(compared, v.change.q_value),
                    verdict_cell(v.verdict, v.reason)});
  }
  out << console_table(rows);
  if (!c.effects.empty()) {
    out << "\ntechnique effects (variant / baseline), before and after:\n";
    rows = {{"workload", "technique", "before", "after", "change [95% CI]", "q", "verdict"}};
    for (const auto& e : c.effects) {
      rows.push_back({e.workload, e.label, ratio_or_dash(e.before, *c.metric),
                      ratio_or_dash(e.after, *c.metric), effect_change_text(e, *c.metric),
                      probability_cell(e.has_p_value, e.q_value),
                      verdict_cell(e.verdict, e.reason)});
    }
    out << console_table(rows);
  }
  if (!c.only_before.empty())
    out << "\nonly before (" << c.only_before.size() << "): " << first_items(c.only_before, 8)
        << "\n";
  if (!c.only_after.empty())
    out << "only after (" << c.only_after.size() << "): " << first_items(c.only_after, 8) << "\n";
  out << "\n" << verdict_counts(c) << "\n";
  out << "q: a row's p-value adjusted over its table's rows (Benjamini-Hochberg: of the rows with "
         "q < 0.05, about 5% or fewer are chance); --markdown and --json also give p\n";
  if (paired_count(c) > 0) out << paired_line(c) << "\n";
  if (few_runs(c)) {
    out << "note: fewer than " << kMinRunsPerSide
        << " runs a side: the 95% intervals undercover, so a verdict may be wrong more often than "
           "1 in 20 (README, Measurement notes)\n";
  }
  return out.str();
}

std::string folder_comparison_markdown(const FolderComparison& c) {
  std::ostringstream out;
  out << "# Comparison of two run folders\n\n";
  out << "- before: `" << c.before_folder << "` (suite `" << c.before_suite << "`, "
      << c.before_records << " records)\n";
  out << "- after: `" << c.after_folder << "` (suite `" << c.after_suite << "`, " << c.after_records
      << " records)\n";
  out << "- metric: " << metric_line(c) << "\n";
  out << "- " << verdict_counts(c) << "\n";
  if (paired_count(c) > 0) out << "- " << paired_line(c) << "\n";
  out << "\n";
  out << "A verdict reads the 95% interval of after / before (bootstrap; Student-t where "
         "paired) against 1 +- the "
         "tolerance: `regressed` or `improved` when the interval lies wholly beyond it on one "
         "side, `unchanged` when it lies wholly within it, `inconclusive` otherwise or with fewer "
         "than 2 runs a side; `failed` when a variant had ok runs before and has none after. "
         "Unless paired, the variants' ratios compare runs made at different times, so they "
         "also measure whatever else changed on the machine in between (its load, its clocks); "
         "a technique's effect is a ratio within each folder, whose interleaved runs cancel such "
         "drift, and `run --against` interleaves two builds the same way. p is two-sided: the "
         "t test of a paired row's logs (below 0.05 exactly when its interval excludes 1x), else "
         "the Mann-Whitney U test; q is p adjusted for all the variants compared together "
         "(Benjamini-Hochberg: of the rows with q < 0.05, about 5% or fewer are chance).";
  if (few_runs(c)) {
    out << " **Fewer than " << kMinRunsPerSide
        << " runs a side**: the intervals undercover, so a verdict may be wrong more often than 1 "
           "in 20.";
  }
  out << "\n\n";
  if (!c.identity_differences.empty()) {
    out << "## The folders differ in machine or build\n\nThe ratios measure these differences "
           "as well as time.\n\n";
    out << table_header({"key", "before", "after"});
    for (const auto& d : c.identity_differences) {
      out << table_row({d.key, joined(d.before, ", "), joined(d.after, ", ")});
    }
    out << "\n";
  }
  for (const auto& unseen : unseen_identity_lines(c)) out << "Note: " << unseen << ".\n\n";
  out << "## Machine speed\n\nEach run times a large matrix product with LibTorch's kernels "
         "before it trains: another machine moves this peak, the build's own code does not, "
         "unless the build changes how LibTorch runs (a sanitizer, another LibTorch, other "
         "threads). Variants that moved by about what the peak moved were moved by the machine; "
         "a peak that held while they moved points at the build. "
      << machine_speed_text(c) << ".\n\n";
  for (const auto& measure : kContentionMeasures) {
    if (const auto spread = side_by_side(c, measure); !spread.empty())
      out << measure.markdown_lead << ": " << spread << measure.markdown_tail << "\n\n";
  }
  out << "Measurement health (which runs and why: each folder's report): "
      << flagged_side_by_side(c) << ".\n\n";
  if (!c.page_fault_shifts.empty()) {
    out << "Page faults per step moved between the folders in these variants ("
        << page_faults_moved_criterion()
        << "): the host allocator gives memory back and takes it again each step on one side, "
           "which a change of allocations, however small, can start or stop, so part of their "
           "after / before may be the allocator's (runs with host_memory_reuse on both sides "
           "leave it out): "
        << joined(page_fault_shift_items(c), ", ") << ".\n\n";
  }
  out << "## Variants, after / before\n\n";
  out << table_header({"workload", "variant", "ok runs before/after", "before median",
                       "after median", "after / before [95% CI]", "p", "q", "verdict", "notes"});
  for (const auto& v : c.variants) {
    std::string notes = v.reason;
    if (v.change.defined && v.change.paired()) {
      notes += (notes.empty() ? "" : "; ") + std::string("paired: geometric mean of ") +
               std::to_string(v.change.n_baseline) + " back-to-back pairs";
    }
    if (!v.config_differences.empty()) {
      notes += (notes.empty() ? "" : "; ") + std::string("configs differ in ") +
               joined(v.config_differences, ", ");
    }
    const bool compared = v.change.defined;
    out << table_row(
        {v.workload, v.variant, runs_text(v.before_ok, v.after_ok),
         compared ? median_text(v.change.baseline_median, *c.metric) : "-",
         compared ? median_text(v.change.variant_median, *c.metric) : "-",
         ratio_or_dash(v.change, *c.metric), probability_cell(compared, v.change.p_value),
         probability_cell(compared, v.change.q_value),
         v.verdict == "regressed" || v.verdict == "failed" ? "**" + v.verdict + "**" : v.verdict,
         notes});
  }
  if (!c.effects.empty()) {
    out << "\n## Technique effects, before and after\n\nEach technique's ratio to its baseline "
           "in each folder (as that folder's report has it: over its runs paired by repetition, "
           "where they pair), and how it changed, (after's ratio) / (before's ratio): where "
           "paired (one `run --against`), the geometric mean of each repetition's change, whose "
           "four runs were made in one sweep of the plan, with a Student-t interval; where each "
           "folder's effect is paired within it, with Welch's t interval of the difference of the "
           "two folders' mean log ratios; else resampling all four sets of runs. p is the t "
           "test's of \"the effect did not change\" (none beside a resampled interval), q the "
           "effect changes' p-values adjusted together. Every effect of a workload is divided "
           "by its baseline's runs, so a baseline that moved moves them all.\n\n";
    out << table_header({"workload", "technique", "before", "after", "change [95% CI]", "p", "q",
                         "verdict", "notes"});
    for (const auto& e : c.effects) {
      out << table_row({e.workload, e.label, ratio_or_dash(e.before, *c.metric),
                        ratio_or_dash(e.after, *c.metric), effect_change_text(e, *c.metric),
                        probability_cell(e.has_p_value, e.p_value),
                        probability_cell(e.has_p_value, e.q_value), e.verdict, effect_notes(e)});
    }
  }
  if (!c.only_before.empty() || !c.only_after.empty()) {
    out << "\n## In one folder only\n\n";
    if (!c.only_before.empty()) out << "- before: " << joined(c.only_before, ", ") << "\n";
    if (!c.only_after.empty()) out << "- after: " << joined(c.only_after, ", ") << "\n";
  }
  return out.str();
}

}  // namespace speedbench::report
