// From records to comparisons: for each (workload, variant vs baseline) of a suite's plan, every
// report metric with n per side, medians, the ratio (or difference) with a 95% interval (over
// runs paired by seed, or of the medians by the bootstrap), a p-value and the coefficients of
// variation. Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/measure/statistics.h"
#include "harness/results/environment_identity.h"
#include "harness/results/record.h"
#include "harness/suite/suite.h"

namespace speedbench::report {

// A per-run number the report compares.
struct MetricInfo {
  std::string id;     // the name claims use: "throughput", "peak_bytes", ...
  std::string title;  // column title
  std::string unit;
  bool ratio = true;  // ratio of medians (variant / baseline); else their difference
  bool lower_is_better = false;
  std::function<std::optional<double>(const Record&)> value;  // nullopt: not measured in this run
};

const std::vector<MetricInfo>& report_metrics();
const MetricInfo* find_metric(const std::string& id);

struct MetricComparison {
  std::string metric;
  int n_baseline = 0, n_variant = 0;  // runs with a value (time_to_target: runs that reached it)
  double baseline_median = 0, variant_median = 0;
  double baseline_cv = 0, variant_cv = 0;  // over repetitions
  bool defined = false;        // both sides have values (and a non-zero baseline for a ratio)
  measure::Interval interval;  // ratio or difference, with its 95% interval
  int pairs = 0;               // over how many pairs of runs (ValuePairs), 0 when unpaired
  bool t_interval = false;     // a paired ratio's Student-t interval, which keeps its coverage
                               // with few pairs (a bootstrap's does not: kMinRunsPerSide)
  double p_value = 1;  // two-sided: the t test of a t interval, else Mann-Whitney U (1 when a side
                       // has no values)
  // p adjusted for the comparisons it was made among (Benjamini-Hochberg): compare() adjusts each
  // metric over the report's comparisons of it; alone, q = p.
  double q_value = 1;
  std::string note;  // e.g. "target reached by 1/3 baseline runs"

  bool paired() const { return pairs > 0; }  // see compare_samples
};

// Below this many runs on a side a comparison's statistics are weak: the U test cannot reach
// p < 0.05 reliably (3 vs 3: p >= 0.1), and where the runs vary, the bootstrap 95% interval
// holds the true ratio about 9 times in 10 instead of 19 in 20 (3 vs 3: the interval is the range
// of the run ratios; BootstrapTest.UnderFiveRunsASideTheIntervalUndercovers).
inline constexpr int kMinRunsPerSide = 5;

inline bool has_few_runs(const MetricComparison& m) {
  return std::min(m.n_baseline, m.n_variant) < kMinRunsPerSide;
}

// Few runs on a side and no t interval from pairs of runs to stand on instead: the U test and the
// bootstrap are what the comparison has (a paired t interval keeps its coverage with few pairs).
inline bool has_few_unpaired_runs(const MetricComparison& m) {
  return !m.t_interval && has_few_runs(m);
}

// The runs of the metric differed, so its interval has a width; one every run measures alike
// (bytes, parameters) has a zero-width interval.
inline bool runs_vary(const MetricComparison& m) { return m.interval.low < m.interval.high; }

// One run on a side: the ratio is a single number with no spread to measure, and its zero-width
// [x, x] is no interval (the report says "no interval"; the plots colour no such bar; a verdict
// from it is inconclusive).
inline bool lacks_interval(int fewest_runs_on_a_side) { return fewest_runs_on_a_side < 2; }
inline bool lacks_interval(const MetricComparison& m) {
  return lacks_interval(std::min(m.n_baseline, m.n_variant));
}

// An interval that holds the true value less often than its 95% says: a bootstrap's from few runs
// a side of a metric whose runs vary (one every run measures alike, such as bytes, has a
// zero-width interval and no such doubt; a paired t interval keeps its coverage), or one run on
// a side. `undercovers` in summary.json, which the plots read.
inline bool interval_undercovers(const MetricComparison& m) {
  if (!m.defined) return false;
  return lacks_interval(m) || (has_few_unpaired_runs(m) && runs_vary(m));
}

// (baseline, variant) values of two runs that belong together: runs that share a seed (the
// report pairs them: repetition k of a suite, made in one sweep of the plan), or the two
// binaries' runs of one planned run of `run --against` (compare pairs them).
using ValuePairs = std::vector<std::pair<double, double>>;

// log(variant / baseline) of each pair; none when a value is not positive.
std::optional<std::vector<double>> log_ratios(const ValuePairs& pairs);

// One metric of two samples (baseline, variant): n, medians, CVs, the U test's p-value, and the
// ratio of medians with its bootstrap interval (the difference of medians for a difference
// metric). With `pairs` (drawn from the samples; a value without a partner is left out), instead
// the geometric mean of the pairs' ratios with a Student-t interval and its t test's p-value (the
// median of their differences, resampling the pairs, for a difference metric): what the two runs
// of a pair share (a seed, the machine's state at the time) then drops out. Not defined when a
// side is empty or, for a ratio, a baseline value is 0.
MetricComparison compare_samples(const std::vector<double>& baseline,
                                 const std::vector<double>& variant, const MetricInfo& info,
                                 const std::optional<ValuePairs>& pairs = std::nullopt);

// Sets the q_value of each test of a family made together (a report's comparisons of one metric,
// compare's variants, compare's effect changes: anything with a p_value and a q_value): their
// p-values adjusted as one family (measure::benjamini_hochberg).
template <typename Test>
void adjust_p_values(const std::vector<Test*>& family) {
  std::vector<double> p_values;
  for (const auto* test : family) p_values.push_back(test->p_value);
  const auto q_values = measure::benjamini_hochberg(p_values);
  for (size_t i = 0; i < family.size(); ++i) family[i]->q_value = q_values[i];
}

struct ComparisonResult {
  Comparison comparison;
  std::string status = "ok";  // ok | not_applicable | failed (no ok run on a side) | missing
  std::string reason;
  int baseline_ok = 0, variant_ok = 0;  // runs with status ok
  int baseline_runs = 0, variant_runs = 0;
  std::vector<MetricComparison> metrics;

  const MetricComparison* metric(const std::string& id) const;
};

// A run folder's contents: records and, when the suite runner wrote it, the plan.
struct Results {
  std::string folder;
  std::string records_path;
  nlohmann::json plan;  // null when absent (records from run-one)
  std::vector<Record> records;
  std::string suite;
  std::string device;  // cpu | cuda (from the records' configs)
  // Of a `run --against` folder (these are this build's records): the folder of the second
  // build's records, which `compare FOLDER` sets beside them; "" for any other folder.
  std::string second_build_folder;
};

// `path` is a run folder or its runs.jsonl. Throws ConfigError for a missing or empty file.
Results load_results(const std::string& path);

// The plan's comparisons, or without a plan every variant against "baseline" per workload.
std::vector<Comparison> planned_comparisons(const Results& results);

// How many runs the plan lists (a suite stopped early recorded fewer); without a plan, the records.
size_t planned_run_count(const Results& results);

// The environment blocks of the records that their runs wrote (not those the runner wrote for a
// --against build that died first), in order: the machines and builds that measured the folder.
std::vector<nlohmann::json> environments(const Results& results);

// The machine or build keys on which the records differ (environment_identity.h); empty when one
// machine and one build made them all.
std::vector<DifferingIdentityKey> environment_differences(const Results& results);

std::vector<ComparisonResult> compare(const Results& results);

// Per (workload, variant): the ok records' values of `metric`, in plan order.
std::vector<double> metric_values(const Results& results, const std::string& workload,
                                  const std::string& variant, const MetricInfo& metric);

// (baseline, variant) values of `metric` for each seed both sides of `comparison` ran (ok runs
// with a value): repetition k of a suite runs every variant with seed base + k, in one sweep of
// the plan, so a pair shares its arithmetic and the machine's state of that sweep. A run whose
// seed the other side lacks (a repetition the time budget cut short, a crashed partner) is left
// out. None when fewer than 2 seeds pair (no interval to draw from pairs) or a side ran one seed
// twice (records of two suite runs in one file). The report's pairs; compare pairs each folder's
// technique effects with them too.
std::optional<ValuePairs> seed_pairs(const Results& results, const Comparison& comparison,
                                     const MetricInfo& metric);

}  // namespace speedbench::report
