// The markdown report: the sections that read the comparisons, and the whole report's order.
#include "harness/report/report_writer.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "harness/report/markdown_sections.h"
#include "harness/report/report_text.h"
#include "harness/techniques/registry.h"

namespace speedbench::report {

namespace {

std::string cv_text(const MetricComparison* m) {
  if (m == nullptr || m->n_baseline < 2 || m->n_variant < 2) return "-";
  const bool noisy = m->baseline_cv > kNoisyCv || m->variant_cv > kNoisyCv;
  return format_number("%.0f%%", 100 * m->baseline_cv) + "/" +
         format_number("%.0f%%", 100 * m->variant_cv) + (noisy ? " (noisy)" : "");
}

std::string p_text(const MetricComparison* m) {
  return m == nullptr || !m->defined ? "-" : probability_text(m->p_value);
}

std::string claim_text(const Claim& claim) {
  const auto* info = find_metric(claim.metric);
  return claim.metric + " " + claim.direction + " " +
         (info->ratio ? format_number("%gx", claim.threshold)
                      : format_number("%+g", claim.threshold));
}

// The claim's verdict on this workload's comparison (the Claims table has the deciding one).
std::string verdict_of(const std::vector<ClaimVerdict>& verdicts, const Claim* claim,
                       const std::string& workload) {
  for (const auto& v : verdicts) {
    if (v.claim != claim) continue;
    for (const auto& [matched, verdict] : v.by_workload) {
      if (matched == workload) return verdict;
    }
    return v.verdict;
  }
  return "";
}

// One row per technique (comparison label), one column per workload: the table a person reads
// first, with the published claim beside and the claims' verdicts.
std::string technique_overview(const ReportInputs& in) {
  std::vector<std::string> workloads, labels;
  for (const auto& r : in.comparisons) {
    if (std::find(workloads.begin(), workloads.end(), r.comparison.workload) == workloads.end()) {
      workloads.push_back(r.comparison.workload);
    }
    if (std::find(labels.begin(), labels.end(), r.comparison.label) == labels.end()) {
      labels.push_back(r.comparison.label);
    }
  }
  std::vector<std::string> columns = {"technique", "published claim"};
  for (const auto& w : workloads) columns.push_back(w + ": throughput / training memory");
  columns.push_back("verdicts");
  std::ostringstream out;
  out << table_header(columns);
  for (const auto& label : labels) {
    const auto* info = find_technique(label);
    std::vector<std::string> cells = {label, info ? info->claim : "-"};
    std::string na_reason;
    for (const auto& w : workloads) {
      std::string cell = "-";
      for (const auto& r : in.comparisons) {
        if (r.comparison.workload != w || r.comparison.label != label) continue;
        if (r.status == "ok") {
          cell = metric_text(r, "throughput") + " / " + metric_text(r, "step_bytes");
        } else {
          cell = r.status == "not_applicable" ? "n/a" : r.status;
          if (na_reason.empty()) na_reason = r.reason;
        }
      }
      cells.push_back(cell);
    }
    std::string verdicts;
    for (const auto& v : in.verdicts) {
      if (v.claim->technique == label && v.verdict != "not_run") {
        verdicts += (verdicts.empty() ? "" : "; ") + v.claim->id + ": **" + v.verdict + "**";
      }
    }
    if (verdicts.empty() && !na_reason.empty()) verdicts = na_reason;
    cells.push_back(verdicts.empty() ? "-" : verdicts);
    out << table_row(cells);
  }
  return out.str();
}

// DDP comparisons (the world size differs): throughput, scaling efficiency, communication.
std::string scaling_table(const ReportInputs& in) {
  std::ostringstream out;
  auto world_size_of = [&](const std::string& workload, const std::string& variant) -> int64_t {
    for (const auto& r : in.results.records) {
      if (r.workload == workload && r.variant == variant && r.status == RunStatus::kOk) {
        return r.metrics.distributed.world_size;
      }
    }
    return 0;
  };
  for (const auto& r : in.comparisons) {
    const auto& c = r.comparison;
    if (r.status != "ok") continue;
    const auto base_world = world_size_of(c.workload, c.baseline);
    const auto world = world_size_of(c.workload, c.variant);
    if (base_world == 0 || world == base_world) continue;
    std::string wait = "-", ranks = "-", buckets = "-";
    const auto waits = metric_values(in.results, c.workload, c.variant, *find_metric("comm_wait"));
    const auto steps = metric_values(in.results, c.workload, c.variant, *find_metric("step_time"));
    if (!waits.empty() && !steps.empty()) {
      const double w = measure::summarize(waits).median;
      wait = format_number("%.2f ms", w) +
             format_number(" (%.0f%% of a step)", 100 * w / measure::summarize(steps).median);
    }
    for (const auto& record : in.results.records) {
      if (record.workload != c.workload || record.variant != c.variant ||
          record.status != RunStatus::kOk)
        continue;
      const auto& d = record.metrics.distributed;
      ranks.clear();
      for (double ms : d.rank_step_ms_median)
        ranks += (ranks.empty() ? "" : " / ") + format_number("%.1f", ms);
      buckets = std::to_string(d.buckets) + " (" + std::to_string(d.overlapped_buckets) +
                " during backward)";
      break;
    }
    out << table_row({c.workload, std::to_string(base_world) + " -> " + std::to_string(world),
                      std::to_string(r.baseline_ok) + "/" + std::to_string(r.variant_ok),
                      metric_text(r, "throughput"), metric_text(r, "scaling_efficiency"), wait,
                      ranks.empty() ? "-" : ranks, buckets});
  }
  if (out.str().empty()) return "";
  return "\n## Scaling (DDP)\n\nScaling efficiency is the ratio of throughput per process "
         "(all ranks' samples/s divided by the world size): 1.00x is linear scaling. The wait is "
         "the time a step spends waiting for gradient all-reduces after backward (median over "
         "runs); per-rank steps are one run's median step time on each rank.\n\n" +
         table_header({"workload", "world size", "n base/var", "throughput", "scaling efficiency",
                       "all-reduce wait per step", "median step ms per rank", "gradient buckets"}) +
         out.str();
}

// Title, what was run, and how to read the numbers.
std::string report_heading(const Results& results) {
  std::map<std::string, int> statuses;
  for (const auto& r : results.records) statuses[to_string(r.status)] += 1;
  std::string status_text;
  for (const auto& [status, count] : statuses) {
    status_text += (status_text.empty() ? "" : ", ") + std::to_string(count) + " " + status;
  }
  std::ostringstream out;
  out << "# speedbench report: " << results.suite << " (" << results.device << ")\n\n";
  if (!results.plan.is_null()) {  // a hand-made plan may lack any of these
    const auto description = results.plan.value("description", "");
    if (!description.empty()) out << description << "\n\n";
    const auto design = results.plan.value("design", "");
    if (!design.empty()) {
      out << "Design `" << design << "`, " << results.plan.value("repetitions", 0)
          << " repetitions, interleaved. ";
    }
  }
  const auto planned = planned_run_count(results);
  if (planned > results.records.size()) {
    out << "**" << results.records.size() << " of the " << planned
        << " planned runs are recorded**: the suite stopped early (at its time budget, or "
           "interrupted); `speedbench run --suite ... --resume` runs the rest. ";
  }
  const auto differences = environment_differences(results);
  if (!differences.empty()) {
    out << "**The records come from more than one machine or build** (they differ in "
        << key_names(differences)
        << "; see \"Environment\"): a ratio between runs of different machines or builds "
           "measures them as well as the technique. ";
  }
  out << results.records.size() << " records (" << status_text << "), "
      << results.records.front().started_at << " to " << results.records.back().finished_at
      << ", run folder `" << results.folder << "`.";
  if (!results.second_build_folder.empty()) {
    out << " It is a `run --against` folder: this report covers this build's records only; the "
           "second build's are in `"
        << results.second_build_folder << "` (`speedbench report " << results.second_build_folder
        << "` reports them), and `speedbench compare " << results.folder
        << "` sets the two builds side by side, run by run.";
  }
  out << "\n\n";
  return out.str();
}

// How to read the comparison tables that follow.
std::string reading_guide() {
  return "Ratios are variant / baseline over runs paired by seed: repetition k of every variant "
         "runs with the same seed in the same sweep of the plan, so a pair shares the machine's "
         "state of that sweep, which drops out of its ratio. A ratio is the geometric mean of the "
         "pairs' ratios with a Student-t 95% interval on their logs, and p is that t test's "
         "(two-sided; p < 0.05 exactly when the interval excludes 1x); a run whose seed the other "
         "side lacks is left out. Where fewer than 2 runs pair, a ratio is of the medians with a "
         "bootstrap 95% interval and p is the two-sided Mann-Whitney U test. q is p adjusted "
         "for the report's many throughput comparisons (Benjamini-Hochberg): the rows with q < "
         "0.05 hold, in expectation, at most 5% whose effect is chance. CV is the "
         "coefficient of variation of throughput over repetitions (baseline/variant, flagged "
         "above 10%). Training memory is the peak of tracked tensor bytes during training "
         "steps above what was resident when training started (the dataset, the model): "
         "activations, gradients, optimizer state. Accuracy is a difference, not a ratio: the "
         "median of variant - baseline over runs paired by seed (a technique that leaves the "
         "arithmetic alone gets exactly 0), or the difference of the medians where fewer than 2 "
         "runs pair (unpaired).\n\n";
}

// Many intervals at once: what a reader of a column of 95% intervals should expect by chance.
// Only throughput ratios whose runs vary count (an exact metric has no chance to err).
std::string many_intervals_note(const ReportInputs& in) {
  int varying = 0, significant = 0, discoveries = 0;
  for (const auto& r : in.comparisons) {
    const auto* t = r.metric("throughput");
    if (r.status != "ok" || t == nullptr || !t->defined || !runs_vary(*t)) continue;
    varying += 1;
    significant += t->p_value < 0.05;
    discoveries += t->q_value < 0.05;
  }
  if (varying < 2) return "";
  return "\nEach 95% interval holds for its own comparison: among these " +
         std::to_string(varying) + " throughput ratios, about " +
         format_number("%.1f", 0.05 * varying) +
         " would exclude 1x by chance even if no technique changed anything (more where a side "
         "has fewer than " +
         std::to_string(kMinRunsPerSide) +
         " runs: see \"Measurement health\"), and the comparisons of one workload share its "
         "baseline's runs, so a baseline that ran fast or slow moves all of that workload's "
         "ratios together. p < 0.05: " +
         std::to_string(significant) +
         " of them; q < 0.05 (p adjusted for all the report's "
         "throughput ratios together): " +
         std::to_string(discoveries) +
         ". An interval that barely clears 1x is worth a second look: `speedbench run --suite "
         "... --only ID --repetitions N`.\n";
}

// One row per compared technique and workload, with its claims and their verdicts; the
// comparisons that could not be made follow, with the reason.
std::string summary_section(const ReportInputs& in) {
  std::ostringstream out, skipped;
  out << "\n## Summary\n\n"
      << table_header({"workload", "technique", "n base/var", "throughput", "p", "q", "CV",
                       "training memory", "accuracy delta", "time to target", "claim", "verdict"});
  for (const auto& r : in.comparisons) {
    const auto& c = r.comparison;
    if (r.status != "ok") {
      skipped << table_row({c.workload, c.label, r.status, r.reason});
      continue;
    }
    const auto* throughput = r.metric("throughput");
    std::string claim, verdict;
    for (const auto* cl : claims_for(in.claims, c, in.results)) {
      claim += (claim.empty() ? "" : "; ") + claim_text(*cl);
      verdict += (verdict.empty() ? "" : "; ") + verdict_of(in.verdicts, cl, c.workload);
    }
    out << table_row(
        {c.workload, c.label, std::to_string(r.baseline_ok) + "/" + std::to_string(r.variant_ok),
         metric_text(r, "throughput"), p_text(throughput), q_text(throughput), cv_text(throughput),
         metric_text(r, "step_bytes"), metric_text(r, "accuracy"), metric_text(r, "time_to_target"),
         claim.empty() ? "-" : claim, verdict.empty() ? "-" : verdict});
  }
  out << many_intervals_note(in);
  if (!skipped.str().empty()) {
    out << "\n## Not compared\n\n"
        << table_header({"workload", "technique", "status", "reason"}) << skipped.str();
  }
  return out.str();
}

// The published claim and source of each technique the report compares, once each.
std::string published_claims_section(const ReportInputs& in) {
  std::ostringstream out;
  out << "\n## Published claims of the techniques compared\n\n"
      << table_header({"technique", "tip", "claim", "source"});
  std::set<std::string> listed;
  for (const auto& r : in.comparisons) {
    const auto* info = find_technique(r.comparison.label);
    if (info == nullptr || !listed.insert(info->id).second) continue;
    out << table_row(
        {info->id, info->tip > 0 ? std::to_string(info->tip) : "-", info->claim, info->source});
  }
  return out.str();
}

// The ratios the summary leaves out: step time, first step, batch wait, FLOP/s, MFU, total and
// evaluation memory, the process's peak RSS and page faults, the generalization gap (a
// difference), syncs.
std::string more_metrics_section(const ReportInputs& in) {
  std::ostringstream out;
  out << "\n## More metrics per comparison\n\n"
      << table_header({"workload", "technique", "median step", "first step", "batch wait per step",
                       "model FLOP/s", "MFU", "peak memory (total)", "peak reserved (CUDA)",
                       "peak RSS (process)", "page faults per step", "eval peak memory",
                       "eval time", "generalization gap", "syncs per step", "CUDA syncs per step",
                       "parameters"});
  for (const auto& r : in.comparisons) {
    if (r.status != "ok") continue;
    out << table_row({r.comparison.workload, r.comparison.label, metric_text(r, "step_time"),
                      metric_text(r, "first_step"), metric_text(r, "data_wait"),
                      metric_text(r, "flop_rate"), metric_text(r, "mfu"),
                      metric_text(r, "peak_bytes"), metric_text(r, "reserved_bytes"),
                      metric_text(r, "peak_rss"), metric_text(r, "page_faults_per_step"),
                      metric_text(r, "eval_peak_bytes"), metric_text(r, "eval_time"),
                      metric_text(r, "generalization_gap"), metric_text(r, "syncs_per_step"),
                      metric_text(r, "device_syncs_per_step"), metric_text(r, "parameters")});
  }
  return out.str();
}

}  // namespace

std::string markdown_report(const ReportInputs& in) {
  const auto runs = "\n## Variants\n" + variant_tables(in.results) + health_section(in) +
                    environment_section(in.results);
  // Nothing to compare: one sentence that says why, not a row of empty tables and unrun claims.
  if (in.comparisons.empty()) {
    return report_heading(in.results) + "## Comparisons\n\n" + no_comparisons_text(in.results) +
           "\n" + runs;
  }
  std::string claims;
  if (!in.verdicts.empty()) claims = "\n## Claims\n\n" + verdict_table(in.verdicts);
  return report_heading(in.results) + reading_guide() + "## By technique\n\n" +
         technique_overview(in) + summary_section(in) + scaling_table(in) + claims +
         published_claims_section(in) + more_metrics_section(in) + runs;
}

std::string verdict_table(const std::vector<ClaimVerdict>& verdicts) {
  std::ostringstream out;
  out << table_header({"claim", "technique", "workload", "claimed", "measured [95% CI]", "n",
                       "verdict", "gate", "note"});
  for (const auto& v : verdicts) {
    const auto& m = v.measurement;
    out << table_row(
        {v.claim->id, v.claim->technique, v.workload.empty() ? v.claim->workload : v.workload,
         claim_text(*v.claim), v.measured ? interval_text(&m, *find_metric(v.claim->metric)) : "-",
         v.measured ? std::to_string(m.n_baseline) + "/" + std::to_string(m.n_variant) : "-",
         v.verdict, v.gates ? "yes" : "no", v.reason});
  }
  return out.str();
}

}  // namespace speedbench::report
