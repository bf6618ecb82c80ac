#include "harness/report/comparisons.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include "harness/config/config_error.h"
#include "harness/config/json_reader.h"
#include "harness/results/records_file.h"
#include "harness/suite/run_folder.h"

namespace speedbench::report {

namespace {

namespace fs = std::filesystem;
using Value = std::optional<double>;

Value positive(double value) { return value > 0 ? Value(value) : std::nullopt; }

std::vector<MetricInfo> build_metrics() {
  return {
      {"throughput", "throughput", "samples/s", true, false,
       [](const Record& r) { return positive(r.metrics.samples_per_s); }},
      {"flop_rate", "achieved model FLOP/s", "FLOP/s", true, false,
       [](const Record& r) {
         return positive(r.metrics.train_flops_per_sample * r.metrics.samples_per_s);
       }},
      // Model FLOP utilisation: per device, against the matmul peak measured at the run's start.
      {"mfu", "model FLOP utilisation", "fraction", true, false,
       [](const Record& r) { return positive(r.metrics.mfu); }},
      {"step_time", "median step", "ms", true, true,
       [](const Record& r) { return positive(measure::summarize(r.metrics.step_ms).median); }},
      // One-time costs (cuDNN autotuning, a graph capture): the first step, a warmup step; a run
      // without warmup steps (or recorded before they were kept) has none.
      {"first_step", "first step", "ms", true, true,
       [](const Record& r) {
         return r.metrics.warmup_step_ms.empty() ? std::nullopt
                                                 : positive(r.metrics.warmup_step_ms.front());
       }},
      // Tip 2's mechanism: how long the training thread waited for each batch (assembling it
      // itself without workers); measured steps only, as throughput.
      {"data_wait", "batch wait per step", "ms", true, true,
       [](const Record& r) {
         return r.metrics.measured_steps > 0
                    ? positive(r.metrics.data_wait_ms_total /
                               static_cast<double>(r.metrics.measured_steps))
                    : std::nullopt;
       }},
      {"peak_bytes", "peak memory (training)", "bytes", true, true,
       [](const Record& r) {
         return positive(static_cast<double>(r.metrics.peak_allocated_bytes));
       }},
      {"step_bytes", "training memory above resident", "bytes", true, true,
       [](const Record& r) { return positive(static_cast<double>(r.metrics.training_bytes())); }},
      {"eval_peak_bytes", "peak memory (evaluation)", "bytes", true, true,
       [](const Record& r) {
         return positive(static_cast<double>(r.metrics.eval_peak_allocated_bytes));
       }},
      {"eval_time", "evaluation time", "s", true, true,
       [](const Record& r) { return positive(r.metrics.eval_wall_s); }},
      {"time_to_target", "time to target", "s", true, true,
       [](const Record& r) { return r.metrics.time_to_target_s; }},
      {"accuracy", "final accuracy", "fraction", false, false,
       [](const Record& r) { return Value(r.metrics.final_test_accuracy); }},
      // Tip 3's generalization gap: at the last evaluation, the test loss above the mean training
      // loss since the evaluation before (nats); a difference, as accuracy is.
      {"generalization_gap", "generalization gap (test - train loss)", "nats", false, true,
       [](const Record& r) {
         if (r.metrics.curve.empty()) return Value();
         return Value(r.metrics.curve.back().test_loss - r.metrics.curve.back().train_loss);
       }},
      {"syncs_per_step", "host syncs per step", "syncs", true, true,
       [](const Record& r) {
         return r.metrics.steps > 0
                    ? Value(static_cast<double>(r.metrics.host_syncs) / r.metrics.steps)
                    : std::nullopt;
       }},
      {"device_syncs_per_step", "CUDA syncs per step (sync-debug mode)", "syncs", true, true,
       [](const Record& r) {
         return r.metrics.device_syncs && r.metrics.steps > 0
                    ? Value(static_cast<double>(*r.metrics.device_syncs) / r.metrics.steps)
                    : std::nullopt;
       }},
      {"reserved_bytes", "peak reserved memory (CUDA, training)", "bytes", true, true,
       [](const Record& r) {
         return positive(static_cast<double>(r.metrics.peak_reserved_bytes));
       }},
      // The process's whole host footprint (LibTorch's, the allocator's kept blocks, the loader's
      // buffers): what host_memory_reuse trades for speed, where tensor memory does not move.
      {"peak_rss", "peak resident memory (process)", "bytes", true, true,
       [](const Record& r) { return positive(static_cast<double>(r.metrics.peak_rss_bytes)); }},
      // host_memory_reuse's mechanism: pages of freed-and-mapped-again blocks touched afresh.
      {"page_faults_per_step", "minor page faults per step", "faults", true, true,
       [](const Record& r) {
         return r.metrics.minor_page_faults && r.metrics.measured_steps > 0
                    ? Value(static_cast<double>(*r.metrics.minor_page_faults) /
                            static_cast<double>(r.metrics.measured_steps))
                    : std::nullopt;
       }},
      {"parameters", "parameters", "count", true, true,
       [](const Record& r) { return positive(static_cast<double>(r.metrics.parameter_count)); }},
      // DDP (tip 10): throughput per process; its ratio between world sizes is the scaling
      // efficiency (1 = linear scaling).
      {"scaling_efficiency", "throughput per process", "samples/s", true, false,
       [](const Record& r) {
         return positive(r.metrics.samples_per_s /
                         static_cast<double>(r.metrics.distributed.world_size));
       }},
      {"comm_wait", "all-reduce wait per step", "ms", true, true,
       [](const Record& r) {
         const auto& d = r.metrics.distributed;
         return d.world_size > 1 && r.metrics.measured_steps > 0
                    ? Value(d.comm_wait_ms_total / static_cast<double>(r.metrics.measured_steps))
                    : std::nullopt;
       }},
  };
}

std::vector<const Record*> records_of(const Results& results, const std::string& workload,
                                      const std::string& variant) {
  std::vector<const Record*> found;
  for (const auto& record : results.records) {
    if (record.workload == workload && record.variant == variant) found.push_back(&record);
  }
  return found;
}

// The metric of each ok run of `variant` by its seed; none when two of them share a seed.
std::optional<std::map<int64_t, double>> values_by_seed(const Results& results,
                                                        const std::string& workload,
                                                        const std::string& variant,
                                                        const MetricInfo& info) {
  std::map<int64_t, double> values;
  for (const auto* record : records_of(results, workload, variant)) {
    if (record->status != RunStatus::kOk) continue;
    const auto value = info.value(*record);
    if (value && !values.emplace(record->seed, *value).second) return std::nullopt;
  }
  return values;
}

int count_ok(const std::vector<const Record*>& records) {
  return static_cast<int>(std::count_if(
      records.begin(), records.end(), [](const Record* r) { return r->status == RunStatus::kOk; }));
}

MetricComparison compare_metric(const Results& results, const Comparison& c, const MetricInfo& info,
                                int baseline_ok, int variant_ok) {
  auto m = compare_samples(metric_values(results, c.workload, c.baseline, info),
                           metric_values(results, c.workload, c.variant, info), info,
                           seed_pairs(results, c, info));
  // Runs that never reached the target are not in the medians: an honest ratio needs all.
  const bool some_not_reached = m.n_baseline < baseline_ok || m.n_variant < variant_ok;
  if (info.id == "time_to_target" && some_not_reached &&
      std::any_of(results.records.begin(), results.records.end(), [&](const Record& r) {
        return r.workload == c.workload && r.metrics.target_accuracy > 0;
      })) {
    m.note = "target reached by " + std::to_string(m.n_baseline) + "/" +
             std::to_string(baseline_ok) + " baseline and " + std::to_string(m.n_variant) + "/" +
             std::to_string(variant_ok) + " variant runs";
    m.defined = false;
  }
  return m;
}

// Over pairs of runs: a ratio (variant / baseline) as the geometric mean of the pairs' ratios
// with a Student-t interval on their logs and that t test's p-value, a difference (variant -
// baseline) as the median of the pairs' differences, resampling the pairs. Timing ratios are
// continuous and their logs roughly normal, and a pairing is worth most with few runs, where a
// bootstrap percentile cannot reach past the pairs' range (with 3 pairs it is [min, max]: in an
// A/A run of the smoke suite it flagged 4 of 37 variants at 5% tolerance); the seed-paired
// accuracy differences of the report are often exactly 0, which the median keeps. False (m
// unchanged) when a ratio's value is not positive.
bool compare_pairs(const ValuePairs& pairs, bool ratio, MetricComparison& m) {
  if (ratio) {
    const auto logs = log_ratios(pairs);
    if (!logs) return false;
    m.interval = measure::t_interval_of_geometric_mean(*logs);
    m.t_interval = true;
    m.p_value = measure::t_test_p_value(*logs);
  } else {
    std::vector<double> differences;
    for (const auto& [baseline, variant] : pairs) differences.push_back(variant - baseline);
    m.interval = measure::bootstrap_median_of_differences(differences);
  }
  m.pairs = static_cast<int>(pairs.size());
  return true;
}

}  // namespace

const std::vector<MetricInfo>& report_metrics() {
  static const std::vector<MetricInfo> metrics = build_metrics();
  return metrics;
}

const MetricInfo* find_metric(const std::string& id) {
  for (const auto& metric : report_metrics()) {
    if (metric.id == id) return &metric;
  }
  return nullptr;
}

std::optional<std::vector<double>> log_ratios(const ValuePairs& pairs) {
  std::vector<double> logs;
  for (const auto& [baseline, variant] : pairs) {
    if (baseline <= 0 || variant <= 0) return std::nullopt;
    logs.push_back(std::log(variant) - std::log(baseline));
  }
  return logs;
}

std::optional<ValuePairs> seed_pairs(const Results& results, const Comparison& c,
                                     const MetricInfo& info) {
  const auto baseline = values_by_seed(results, c.workload, c.baseline, info);
  const auto variant = values_by_seed(results, c.workload, c.variant, info);
  if (!baseline || !variant) return std::nullopt;
  ValuePairs pairs;
  for (const auto& [seed, value] : *variant) {
    const auto partner = baseline->find(seed);
    if (partner != baseline->end()) pairs.emplace_back(partner->second, value);
  }
  if (pairs.size() < 2) return std::nullopt;
  return pairs;
}

MetricComparison compare_samples(const std::vector<double>& baseline,
                                 const std::vector<double>& variant, const MetricInfo& info,
                                 const std::optional<ValuePairs>& pairs) {
  MetricComparison m;
  m.metric = info.id;
  m.n_baseline = static_cast<int>(baseline.size());
  m.n_variant = static_cast<int>(variant.size());
  if (baseline.empty() || variant.empty()) return m;
  const auto b = measure::summarize(baseline);
  const auto v = measure::summarize(variant);
  m.baseline_median = b.median;
  m.variant_median = v.median;
  m.baseline_cv = b.cv;
  m.variant_cv = v.cv;
  const bool paired = pairs && !pairs->empty() && compare_pairs(*pairs, info.ratio, m);
  // A paired ratio's p-value is its t test's (compare_pairs).
  if (!m.t_interval) m.p_value = measure::mann_whitney_u(variant, baseline).p_value;
  m.q_value = m.p_value;
  if (!paired) {  // of the medians, resampling each side
    if (!info.ratio) {
      m.interval = measure::bootstrap_difference_of_medians(baseline, variant);
    } else if (std::any_of(baseline.begin(), baseline.end(), [](double x) { return x == 0; })) {
      m.note = "a baseline run is 0: no ratio";  // a resampled median could be 0
      return m;
    } else {
      m.interval = measure::bootstrap_ratio_of_medians(baseline, variant);
    }
  }
  m.defined = true;
  return m;
}

const MetricComparison* ComparisonResult::metric(const std::string& id) const {
  for (const auto& m : metrics) {
    if (m.metric == id) return &m;
  }
  return nullptr;
}

namespace {

// Why `given` has no records, and what it should be: a path that is not there, a suite's folder
// of runs (then the newest run folder in it), or a folder without records.
ConfigError no_records_error(const fs::path& given, const std::string& records_path) {
  const std::string expected =
      "expected a run folder (results/<suite>/<run-id>/) or its runs.jsonl";
  if (!fs::exists(given))
    return ConfigError(given.string(), "", "no such file or folder; " + expected);
  std::string newest_run;  // run ids start with their date and time: the greatest is the newest
  if (fs::is_directory(given)) {
    for (const auto& entry : fs::directory_iterator(given)) {
      if (fs::exists(entry.path() / "runs.jsonl")) {
        newest_run = std::max(newest_run, entry.path().string());
      }
    }
  }
  if (!newest_run.empty()) {
    return ConfigError(
        given.string(), "",
        "a folder of run folders, not one run; " + expected + ", the newest here: " + newest_run);
  }
  return ConfigError(records_path, "", "no records here; " + expected);
}

// A report makes many comparisons of each metric (36 throughput ratios in the CPU reference), and
// about one in 20 of those with no effect still has p < 0.05: each metric's defined comparisons
// are one family.
void adjust_p_values_per_metric(std::vector<ComparisonResult>& results) {
  for (const auto& info : report_metrics()) {
    std::vector<MetricComparison*> family;
    for (auto& result : results) {
      for (auto& m : result.metrics) {
        if (m.metric == info.id && m.defined) family.push_back(&m);
      }
    }
    adjust_p_values(family);
  }
}

}  // namespace

Results load_results(const std::string& path) {
  Results results;
  const fs::path given(path);
  results.folder = fs::is_directory(given) ? given.string() : given.parent_path().string();
  results.records_path = fs::is_directory(given) ? (given / "runs.jsonl").string() : given.string();
  if (!fs::exists(results.records_path)) throw no_records_error(given, results.records_path);
  results.records = read_records(results.records_path);  // a bad line is a ConfigError
  if (results.records.empty())
    throw ConfigError(results.records_path, "", "the file has no records");
  const auto plan_path = fs::path(results.folder) / "plan.json";
  if (fs::exists(plan_path)) {
    results.plan = checked_plan_json(read_json_file(plan_path.string()), plan_path.string());
  }
  results.suite = results.records.front().suite;
  results.device = results.records.front().config.value("device", "cpu");
  const auto second_build = fs::path(results.folder) / kAgainstFolder;
  if (fs::exists(second_build / "runs.jsonl")) results.second_build_folder = second_build.string();
  return results;
}

std::vector<Comparison> planned_comparisons(const Results& results) {
  if (!results.plan.is_null()) return comparisons_from_plan_json(results.plan);
  std::vector<Comparison> comparisons;
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& record : results.records) {
    if (record.variant == "baseline" || !seen.insert({record.workload, record.variant}).second)
      continue;
    comparisons.push_back({record.workload, record.variant, "baseline", record.variant});
  }
  return comparisons;
}

size_t planned_run_count(const Results& results) {
  if (results.plan.is_null()) return results.records.size();
  return results.plan.value("runs", nlohmann::json::array()).size();
}

std::vector<nlohmann::json> environments(const Results& results) {
  std::vector<nlohmann::json> blocks;
  for (const auto& record : results.records) {
    if (!written_for_another_build(record.environment)) blocks.push_back(record.environment);
  }
  return blocks;
}

std::vector<DifferingIdentityKey> environment_differences(const Results& results) {
  return differing_identity_keys(environments(results));
}

std::vector<double> metric_values(const Results& results, const std::string& workload,
                                  const std::string& variant, const MetricInfo& metric) {
  std::vector<double> values;
  for (const auto* record : records_of(results, workload, variant)) {
    if (record->status != RunStatus::kOk) continue;
    if (const auto value = metric.value(*record)) values.push_back(*value);
  }
  return values;
}

std::vector<ComparisonResult> compare(const Results& results) {
  std::vector<ComparisonResult> out;
  for (const auto& comparison : planned_comparisons(results)) {
    ComparisonResult result;
    result.comparison = comparison;
    const auto baseline = records_of(results, comparison.workload, comparison.baseline);
    const auto variant = records_of(results, comparison.workload, comparison.variant);
    result.baseline_runs = static_cast<int>(baseline.size());
    result.variant_runs = static_cast<int>(variant.size());
    result.baseline_ok = count_ok(baseline);
    result.variant_ok = count_ok(variant);
    const Record* not_applicable = nullptr;
    for (const auto* side : {&variant, &baseline}) {
      for (const auto* r : *side) {
        if (r->status == RunStatus::kNotApplicable && not_applicable == nullptr) not_applicable = r;
      }
    }
    if (baseline.empty() || variant.empty()) {
      result.status = "missing";
      result.reason =
          "no records of " + (baseline.empty() ? comparison.baseline : comparison.variant);
    } else if (not_applicable != nullptr) {
      result.status = "not_applicable";
      result.reason = not_applicable->message;
    } else if (result.baseline_ok == 0 || result.variant_ok == 0) {
      const auto& failed = result.variant_ok == 0 ? variant : baseline;
      result.status = "failed";
      result.reason = "no ok run of " + failed.front()->variant + ": " +
                      to_string(failed.front()->status) + " (" + failed.front()->message + ")";
    }
    if (result.status == "ok") {
      for (const auto& info : report_metrics()) {
        result.metrics.push_back(
            compare_metric(results, comparison, info, result.baseline_ok, result.variant_ok));
      }
    }
    out.push_back(std::move(result));
  }
  adjust_p_values_per_metric(out);
  return out;
}

}  // namespace speedbench::report
