// The sections of the markdown report that read the runs one by one (see markdown_sections.h).
#include <algorithm>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "harness/report/cpu_contention.h"
#include "harness/report/machine_speed.h"
#include "harness/report/markdown_sections.h"
#include "harness/report/page_fault_shifts.h"
#include "harness/report/report_text.h"
#include "harness/report/run_health.h"

namespace speedbench::report {

namespace {

std::string mib(double bytes) { return format_number("%.1f", bytes / 1048576.0); }

// An environment value for a table cell; a set of flags ({"avx2": true, "amx_bf16": false, ...})
// as "yes: avx2, ...; no: amx_bf16, ..." rather than as 50 JSON pairs.
std::string environment_value_text(const nlohmann::json& value) {
  const bool flags = value.is_object() && !value.empty() &&
                     std::all_of(value.begin(), value.end(),
                                 [](const nlohmann::json& v) { return v.is_boolean(); });
  if (!flags) return identity_value_text(value);
  std::string yes, no;
  for (const auto& [name, on] : value.items()) {
    auto& list = on.get<bool>() ? yes : no;
    list += (list.empty() ? "" : ", ") + name;
  }
  return "yes: " + (yes.empty() ? "none" : yes) + "; no: " + (no.empty() ? "none" : no);
}

}  // namespace

std::string variant_tables(const Results& results) {
  std::ostringstream out;
  std::vector<std::pair<std::string, std::string>> order;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : results.records) {
    if (seen.insert({r.workload, r.variant}).second) order.push_back({r.workload, r.variant});
  }
  std::string workload;
  auto median = [&](const std::pair<std::string, std::string>& key, const char* id) {
    const auto values = metric_values(results, key.first, key.second, *find_metric(id));
    return values.empty() ? std::optional<measure::Summary>() : measure::summarize(values);
  };
  for (const auto& key : order) {
    if (key.first != workload) {
      workload = key.first;
      out << "\n### " << workload << "\n\n"
          << table_header({"variant", "ok/runs", "samples/s (CV)", "model GFLOP/s (MFU)",
                           "median step ms", "first step ms", "batch wait ms/step",
                           "peak MiB train / eval / RSS", "accuracy", "time to target s (reached)",
                           "syncs/step (CUDA)", "parameters"});
    }
    int runs = 0, ok = 0, reached = 0;
    std::string other;
    for (const auto& r : results.records) {
      if (r.workload != key.first || r.variant != key.second) continue;
      runs += 1;
      ok += r.status == RunStatus::kOk;
      reached += r.metrics.time_to_target_s.has_value();
      if (r.status != RunStatus::kOk && other.empty())
        other = to_string(r.status) + ": " + r.message;
    }
    if (ok == 0) {
      out << table_row({key.second, std::to_string(ok) + "/" + std::to_string(runs), other, "", "",
                        "", "", "", "", "", "", ""});
      continue;
    }
    const auto throughput = median(key, "throughput");
    const auto flop_rate = median(key, "flop_rate");
    const auto step = median(key, "step_time");
    const auto first_step = median(key, "first_step");
    const auto data_wait = median(key, "data_wait");
    const auto peak = median(key, "peak_bytes");
    const auto eval_peak = median(key, "eval_peak_bytes");
    const auto rss = median(key, "peak_rss");
    const auto accuracy = median(key, "accuracy");
    const auto ttt = median(key, "time_to_target");
    const auto syncs = median(key, "syncs_per_step");
    const auto device_syncs = median(key, "device_syncs_per_step");
    const auto mfu = median(key, "mfu");
    const auto params = median(key, "parameters");
    out << table_row({key.second, std::to_string(ok) + "/" + std::to_string(runs),
                      throughput ? format_number("%.0f", throughput->median) + " (" +
                                       format_number("%.1f%%", 100 * throughput->cv) + ")"
                                 : "-",
                      (flop_rate ? format_number("%.2f", flop_rate->median / 1e9) : "-") +
                          (mfu ? format_number(" (%.1f%%)", 100 * mfu->median) : ""),
                      step ? format_number("%.2f", step->median) : "-",
                      first_step ? format_number("%.1f", first_step->median) : "-",
                      data_wait ? format_number("%.3f", data_wait->median) : "-",
                      (peak ? mib(peak->median) : "-") + " / " +
                          (eval_peak ? mib(eval_peak->median) : "-") + " / " +
                          (rss ? mib(rss->median) : "-"),
                      accuracy ? format_number("%.4f", accuracy->median) : "-",
                      ttt ? format_number("%.1f", ttt->median) + " (" + std::to_string(reached) +
                                "/" + std::to_string(ok) + ")"
                          : "- (0/" + std::to_string(ok) + ")",
                      (syncs ? format_number("%.2f", syncs->median) : "-") +
                          (device_syncs ? format_number(" (%.2f)", device_syncs->median) : ""),
                      params ? format_number("%.0f", params->median) : "-"});
  }
  return out.str();
}

namespace {

// How the peak moved within the ok runs, from each run's start to its end (a GPU whose clocks
// fall under load, a neighbour that came or went); "" where fewer than 2 runs timed it twice.
std::string peak_within_runs_text(const Results& results) {
  std::vector<double> ratios;
  int apart = 0;
  for (const auto& record : results.records) {
    if (record.status != RunStatus::kOk) continue;
    if (const auto probes = matmul_peak_probes(record)) {
      ratios.push_back(probes->end_over_start());
      apart += probes->moved() ? 1 : 0;
    }
  }
  if (ratios.size() < 2) return "";
  const auto spread = measure::summarize(ratios);
  return " Within the runs, the peak each timed again at its end was " +
         format_number("%.3f", spread.median) + "x its start's (median; 10th to 90th percentile " +
         format_number("%.3g", spread.p10) + "x to " + format_number("%.3g", spread.p90) +
         "x, over " + std::to_string(spread.count) + " runs; " +
         (apart == 0 ? std::string("none") : std::to_string(apart)) + " more than " +
         format_number("%.2f", kPeakProbesApart) + "x apart" +
         (apart == 0 ? "" : ", flagged \"peak moved\"") + ").";
}

// How much the machine's own speed moved from run to run, by the fp32 matmul peak each run timed
// at its start; "" with fewer than 2 such runs, or products of more than one size.
std::string machine_speed_spread(const Results& results) {
  const auto peaks = fp32_matmul_peaks(results);
  if (peaks.flops_per_s.size() < 2 || peaks.sizes.size() != 1) return "";
  const auto spread = measure::summarize(peaks.flops_per_s);
  const auto n = std::to_string(*peaks.sizes.begin());
  return "\nThe machine's own speed from run to run: the fp32 matmul peak each run timed at its "
         "start (" +
         n + " x " + n + ", the product MFU divides by) had a median of " +
         flop_rate_text(spread.median) + ", 10th to 90th percentile " + flop_rate_text(spread.p10) +
         " to " + flop_rate_text(spread.p90) + ", CV " + format_number("%.0f%%", 100 * spread.cv) +
         " over " + std::to_string(spread.count) +
         " runs (each peak is a few milliseconds of products, so the spread holds the probe's "
         "own noise too). A machine whose speed moves widens every throughput interval: "
         "interleaved repetitions keep its drift out of the ratios, not its spread out of their "
         "intervals. "
         "`speedbench compare` sets this peak against another folder's." +
         peak_within_runs_text(results) + "\n";
}

// How quiet the machine was while the runs trained; "" where no run measured it.
std::string cpu_contention_spread(const Results& results) {
  const auto contention = cpu_contention_of_runs(results);
  std::vector<std::string> sentences;
  if (!contention.busy_cores.empty()) {
    sentences.push_back(
        "Other processes' load while the runs trained: " + other_load_text(contention) +
        " (the busy CPU time of the cores a run may use, less its own, per "
        "second of training).");
  }
  if (!contention.stolen_cores.empty()) {
    sentences.push_back("The hypervisor's steal of those cores: " + steal_text(contention) +
                        " (time it gave them to other guests; 0 off a virtual machine).");
  }
  if (!contention.cpu_wait_threads.empty()) {
    sentences.push_back("The runs' threads that waited for a CPU: " + cpu_wait_text(contention) +
                        " (ready to run, on average, by the kernel's run-queue delay; whatever "
                        "held them back: other load, the run's own threads, a CPU quota).");
  }
  if (!contention.quota_throttled_share.empty()) {
    sentences.push_back("Their cgroup CPU quota throttled them in " +
                        quota_throttling_text(contention) +
                        " (periods in which the quota ran out and stopped every thread of the "
                        "run until the next).");
  }
  return sentences.empty() ? "" : "\n" + joined(sentences, " ") + "\n";
}

}  // namespace

std::string health_section(const ReportInputs& in) {
  std::ostringstream runs;
  int flagged = 0;
  for (const auto& r : in.results.records) {
    const auto flags = run_health_flag_texts(r);
    if (flags.empty()) continue;
    flagged += 1;
    runs << table_row({r.workload, r.variant, std::to_string(r.repetition), joined(flags, "; ")});
  }
  std::ostringstream few;
  for (const auto& c : in.comparisons) {
    const auto* t = c.metric("throughput");
    if (c.status != "ok" || t == nullptr) continue;
    if (has_few_unpaired_runs(*t)) {
      few << table_row({c.comparison.workload, c.comparison.label,
                        std::to_string(t->n_baseline) + "/" + std::to_string(t->n_variant)});
    }
  }
  std::ostringstream out;
  out << "\n## Measurement health\n\n"
      << flagged << " of " << in.results.records.size()
      << " runs flagged (step-time CV above 10%, more than "
      << format_number("%.2f", kBusyCoresOfOthers)
      << " cores busy with other processes while the run trained (\"at start\": sampled before "
         "it, in older records) beyond the cores its threads and loader workers left idle or "
         "its cgroup CPU quota kept it from, or stolen by the hypervisor of a virtual machine, "
         "more than "
      << format_number("%.2f", kCpuWaitThreads)
      << " of its threads waiting for a CPU on average, its CPU quota throttling it in more than "
      << format_number("%.0f%%", 100 * kQuotaThrottledShare)
      << " of the quota's periods, more LibTorch threads over its ranks "
         "than cores on a CPU run, or a CPU frequency governor other than performance; on "
         "machines that do not expose cpufreq, e.g. most VMs, the governor is unknown; the "
         "matmul peaks the run timed at its start and at its end more than "
      << format_number("%.2f", kPeakProbesApart)
      << "x apart (the machine's speed moved within the run: a transient during one probe, "
         "milliseconds of products, or a clock that fell under load; MFU divides by the faster); "
         "or no MFU because the model's FLOP rate beat the faster of those peaks, which is then "
         "no ceiling: the product is not the device's fastest path for the dtype, as bf16 at::mm "
         "on a CPU without native bf16, or both probes ran slow).\n";
  if (flagged > 0)
    out << "\n" << table_header({"workload", "variant", "repetition", "flags"}) << runs.str();
  out << cpu_contention_spread(in.results) << machine_speed_spread(in.results)
      << page_fault_shifts_text(page_fault_shifts(in.results, in.comparisons),
                                in.results.plan.is_null() ? "" : in.results.plan.value("file", ""));
  if (!few.str().empty()) {
    out << "\nFewer than " << kMinRunsPerSide
        << " runs on a side and no pairs of runs of one seed to draw a t interval from: the "
           "Mann-Whitney U test cannot reach p < 0.05 reliably (with 3 vs 3 "
           "the smallest possible p is 0.1), and where the runs vary, the bootstrap 95% interval "
           "holds the true ratio about 9 times in 10 rather than 19 in 20 (3 vs 3: it excludes "
           "1x for a technique with no effect 1 time in 10). "
           "Read these comparisons' timing intervals as indicative:\n\n"
        << table_header({"workload", "technique", "n base/var"}) << few.str();
  }
  return out.str();
}

std::string environment_section(const Results& results) {
  std::ostringstream out;
  out << "\n## Environment (first record)\n\n" << table_header({"key", "value"});
  for (const auto& [key, value] : results.records.front().environment.items()) {
    out << table_row({key, environment_value_text(value)});
  }
  const auto differences = environment_differences(results);
  if (differences.empty()) return out.str();
  out << "\nThe records do not share one machine and build; they differ in:\n\n"
      << table_header({"key", "value", "records"});
  for (const auto& d : differences) {
    for (const auto& [value, count] : d.count_per_value) {
      out << table_row({d.key, value, std::to_string(count)});
    }
  }
  return out.str();
}

}  // namespace speedbench::report
