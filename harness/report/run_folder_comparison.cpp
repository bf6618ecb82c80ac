#include "harness/report/run_folder_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "harness/config/config_changes.h"
#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/report/cpu_contention.h"
#include "harness/results/environment_identity.h"

namespace speedbench::report {

namespace {

using WorkloadVariant = std::pair<std::string, std::string>;
// A metric's values by a run's (run id, number): its run index or its repetition.
using KeyedValues = std::map<std::pair<std::string, int64_t>, double>;

// The metric's values over the ok runs of one (workload, variant) of a folder, and, when they
// cannot be compared, why: no ok run (the first record's status and message say what happened),
// or ok runs without the metric (device syncs on a CPU, a target some runs never reached).
struct Sample {
  const Record* first = nullptr;  // its first record (nullptr: none)
  std::vector<double> values;
  // The values by (run id, run index): the planned run each was made for. `run --against` makes
  // every planned run with both binaries, into two folders with one run id.
  KeyedValues by_planned_run;
  // The values by (run id, repetition): within one suite run, repetition k of every variant is
  // made in one sweep of the plan, so a baseline's and a variant's runs pair by it.
  KeyedValues by_repetition;
  int ok = 0;
  std::string missing = "no records";
  bool failed = false;  // runs, none ok, and not because the technique does not apply here
};

using Samples = std::map<WorkloadVariant, Sample>;

// Every (workload, variant)'s sample of `metric`, in one pass over the folder's records.
Samples samples_of(const Results& results, const MetricInfo& metric) {
  Samples samples;
  for (const auto& record : results.records) {
    auto& sample = samples[{record.workload, record.variant}];
    if (sample.first == nullptr) sample.first = &record;
    if (record.status != RunStatus::kOk) continue;
    sample.ok += 1;
    if (const auto value = metric.value(record)) {
      sample.values.push_back(*value);
      sample.by_planned_run.emplace(std::make_pair(record.run_id, record.run_index), *value);
      sample.by_repetition.emplace(std::make_pair(record.run_id, record.repetition), *value);
    }
  }
  for (auto& [which, sample] : samples) {
    const Record& first = *sample.first;
    sample.missing.clear();
    if (sample.ok == 0) {
      sample.missing =
          to_string(first.status) + (first.message.empty() ? "" : " (" + first.message + ")");
      sample.failed = first.status != RunStatus::kNotApplicable;
    } else if (static_cast<int>(sample.values.size()) < sample.ok) {
      sample.missing = metric.id + " measured in " + std::to_string(sample.values.size()) + " of " +
                       std::to_string(sample.ok) + " ok runs";
    }
  }
  return samples;
}

// The sample of `which`; an empty one ("no records") for a planned variant without records.
const Sample& sample_at(const Samples& samples, const WorkloadVariant& which) {
  static const Sample none;
  const auto found = samples.find(which);
  return found == samples.end() ? none : found->second;
}

// "before: <why>; after: <why>" for the samples that cannot be compared, one reason once:
// "before and after: <why>".
std::string missing_text(const std::vector<std::pair<std::string, const Sample*>>& named) {
  std::vector<std::pair<std::string, std::string>> reasons;  // (why, names), in first-seen order
  for (const auto& [name, sample] : named) {
    const auto& missing = sample->missing;  // a lambda cannot capture a binding in C++17
    if (missing.empty()) continue;
    auto same = std::find_if(reasons.begin(), reasons.end(),
                             [&](const auto& reason) { return reason.first == missing; });
    if (same == reasons.end()) {
      reasons.emplace_back(missing, name);
    } else {
      same->second += " and " + name;
    }
  }
  std::string text;
  for (const auto& [why, names] : reasons) text += (text.empty() ? "" : "; ") + names + ": " + why;
  return text;
}

std::vector<WorkloadVariant> variants_in_order(const Results& results) {
  std::vector<WorkloadVariant> order;
  std::set<WorkloadVariant> seen;
  for (const auto& record : results.records) {
    if (seen.insert({record.workload, record.variant}).second)
      order.emplace_back(record.workload, record.variant);
  }
  return order;
}

// A record's config with today's defaults for the fields its version did not have yet (a field's
// default is the behaviour from before it existed), so that a newer field is no difference; as
// recorded when today's loader refuses it (a field since removed).
nlohmann::json with_current_defaults(const nlohmann::json& config) {
  try {
    return train_config_to_json(train_config_from_json(config, ""));
  } catch (const ConfigError&) {
    return config;
  }
}

// The config fields two records' configs differ in ("max_steps", "model.widths"), the seed left
// out: a suite gives repetition k the seed base + k on every variant.
std::vector<std::string> config_differences(const nlohmann::json& before_config,
                                            const nlohmann::json& after_config) {
  auto before = with_current_defaults(before_config);
  auto after = with_current_defaults(after_config);
  before.erase("seed");
  after.erase("seed");
  std::vector<std::string> fields;
  for (const auto& change : config_field_changes(before, after)) fields.push_back(change.field);
  return fields;
}

std::vector<IdentityDifference> identity_differences(const IdentityValueCounts& before_values,
                                                     const IdentityValueCounts& after_values) {
  auto value_texts = [](const std::map<std::string, int>& counts) {
    std::vector<std::string> texts;
    for (const auto& entry : counts) texts.push_back(entry.first);
    return texts;
  };
  std::vector<IdentityDifference> differences;
  for (const auto& [key, counts] : before_values) {
    const auto other = after_values.find(key);
    // A key only one side has (records written before it existed) is not a difference.
    if (other == after_values.end()) continue;
    auto before = value_texts(counts), after = value_texts(other->second);
    if (before != after) differences.push_back({key, std::move(before), std::move(after)});
  }
  return differences;
}

// The top-level names ("cpu_isa" for "cpu_isa.avx2") of the keys `these` has and `others` lacks.
std::vector<std::string> identity_keys_missing_from(const IdentityValueCounts& these,
                                                    const IdentityValueCounts& others) {
  // Records that name nothing (every run on that side died before writing its own) are not older.
  if (others.empty()) return {};
  std::set<std::string> names;
  for (const auto& entry : these) {
    if (others.count(entry.first) == 0) names.insert(entry.first.substr(0, entry.first.find('.')));
  }
  return {names.begin(), names.end()};
}

// The samples' values key by key ((run id, run index) or (run id, repetition): `keyed`), when
// every sample has one value per key and all have the same keys: runs that belong together, one
// in each sample. Else none: some run has no partner, or two runs share a key.
std::optional<std::vector<std::vector<double>>> aligned_by(
    const std::vector<const Sample*>& samples, KeyedValues Sample::*keyed) {
  const auto& keys = samples.front()->*keyed;
  for (const auto* sample : samples) {
    if ((sample->*keyed).size() != sample->values.size() || (sample->*keyed).size() != keys.size())
      return std::nullopt;
  }
  std::vector<std::vector<double>> aligned;
  for (const auto& entry : keys) {
    auto& values = aligned.emplace_back();
    for (const auto* sample : samples) {
      const auto found = (sample->*keyed).find(entry.first);
      if (found == (sample->*keyed).end()) return std::nullopt;
      values.push_back(found->second);
    }
  }
  return aligned;
}

// (before, after) per planned run: the two runs that `run --against` made back to back, one by
// each binary; none for two separate runs.
std::optional<ValuePairs> planned_run_pairs(const Sample& before, const Sample& after) {
  const auto aligned = aligned_by({&before, &after}, &Sample::by_planned_run);
  if (!aligned) return std::nullopt;
  ValuePairs pairs;
  for (const auto& values : *aligned) pairs.emplace_back(values[0], values[1]);
  return pairs;
}

// Per repetition, the log of the change of an effect, log((av / ab) / (bv / bb)), from the four
// samples (before's baseline and variant, after's baseline and variant) of one `run --against`,
// whose four runs of a repetition were made in one sweep of its plan. Else none.
std::optional<std::vector<double>> log_effect_changes_by_repetition(
    const std::vector<const Sample*>& samples) {
  const auto aligned = aligned_by(samples, &Sample::by_repetition);
  if (!aligned) return std::nullopt;
  std::vector<double> changes;
  for (const auto& v : *aligned) {
    if (std::any_of(v.begin(), v.end(), [](double value) { return value <= 0; }))
      return std::nullopt;
    changes.push_back(std::log(v[3] / v[2]) - std::log(v[1] / v[0]));
  }
  return changes;
}

// `which` has records in both folders.
VariantChange compare_variant(const Sample& before_sample, const Sample& after_sample,
                              const WorkloadVariant& which, const MetricInfo& metric,
                              double tolerance) {
  VariantChange change;
  change.workload = which.first;
  change.variant = which.second;
  change.before_ok = before_sample.ok;
  change.after_ok = after_sample.ok;
  change.config_differences =
      config_differences(before_sample.first->config, after_sample.first->config);
  change.reason = missing_text({{"before", &before_sample}, {"after", &after_sample}});
  if (change.reason.empty()) {
    change.change = compare_samples(before_sample.values, after_sample.values, metric,
                                    planned_run_pairs(before_sample, after_sample));
    change.reason = change.change.note;
  }
  if (change.change.defined) {
    change.verdict = change_verdict(change.change.interval, metric.lower_is_better, tolerance,
                                    std::min(change.change.n_baseline, change.change.n_variant));
  } else {
    // A variant that trained before and now crashes, diverges or runs out of memory is the worst
    // regression there is.
    change.verdict = before_sample.ok > 0 && after_sample.failed ? "failed" : "not_compared";
  }
  return change;
}

// `before_results` and `after_results` hold the records of `before` and `after`.
EffectChange compare_effect(const Results& before_results, const Results& after_results,
                            const Samples& before, const Samples& after, const Comparison& c,
                            const MetricInfo& metric, double tolerance) {
  EffectChange effect;
  effect.workload = c.workload;
  effect.label = c.label;
  effect.variant = c.variant;
  effect.baseline = c.baseline;
  const std::vector<const Sample*> samples = {
      &sample_at(before, {c.workload, c.baseline}), &sample_at(before, {c.workload, c.variant}),
      &sample_at(after, {c.workload, c.baseline}), &sample_at(after, {c.workload, c.variant})};
  effect.reason = missing_text({{"before, " + c.baseline, samples[0]},
                                {"before, " + c.variant, samples[1]},
                                {"after, " + c.baseline, samples[2]},
                                {"after, " + c.variant, samples[3]}});
  effect.verdict = "not_compared";
  if (!effect.reason.empty()) return effect;
  // Each folder's effect as its report has it: paired by seed (by repetition) where runs pair.
  const auto before_pairs = seed_pairs(before_results, c, metric);
  const auto after_pairs = seed_pairs(after_results, c, metric);
  effect.before = compare_samples(samples[0]->values, samples[1]->values, metric, before_pairs);
  effect.after = compare_samples(samples[2]->values, samples[3]->values, metric, after_pairs);
  if (!effect.before.defined || !effect.after.defined) {
    effect.reason = effect.before.defined ? effect.after.note : effect.before.note;
    return effect;
  }
  if (const auto changes = log_effect_changes_by_repetition(samples)) {
    // As a paired variant row: the geometric mean with a Student-t interval.
    effect.change = measure::t_interval_of_geometric_mean(*changes);
    effect.p_value = measure::t_test_p_value(*changes);
    effect.has_p_value = effect.paired = true;
  } else if (effect.before.t_interval && effect.after.t_interval) {
    // Two paired effects measured apart: Welch's interval of the change of their logs' means.
    const auto before_logs = *log_ratios(*before_pairs), after_logs = *log_ratios(*after_pairs);
    effect.change = measure::welch_t_interval_of_change(before_logs, after_logs);
    effect.p_value = measure::welch_t_test_p_value(before_logs, after_logs);
    effect.has_p_value = effect.within_folder_pairs = true;
  } else {  // no test beside the bootstrap interval: no p-value
    effect.change = measure::bootstrap_ratio_of_ratios(samples[0]->values, samples[1]->values,
                                                       samples[2]->values, samples[3]->values);
  }
  effect.defined = true;
  effect.fewest_runs = static_cast<int>(samples[0]->values.size());
  for (const auto* sample : samples)
    effect.fewest_runs = std::min(effect.fewest_runs, static_cast<int>(sample->values.size()));
  // A larger ratio is a larger effect: better where the metric's higher values are.
  effect.verdict =
      change_verdict(effect.change, metric.lower_is_better, tolerance, effect.fewest_runs);
  return effect;
}

}  // namespace

std::string change_verdict(const measure::Interval& interval, bool lower_is_better,
                           double tolerance, int fewest_runs_on_a_side) {
  if (lacks_interval(fewest_runs_on_a_side)) return "inconclusive";
  const double low = 1 - tolerance, high = 1 + tolerance;
  if (interval.low >= low && interval.high <= high) return "unchanged";
  if (interval.low > high) return lower_is_better ? "regressed" : "improved";
  if (interval.high < low) return lower_is_better ? "improved" : "regressed";
  return "inconclusive";
}

std::vector<std::string> comparable_metric_ids() {
  std::vector<std::string> ids;
  for (const auto& metric : report_metrics()) {
    if (metric.ratio) ids.push_back(metric.id);
  }
  return ids;
}

int FolderComparison::count(const std::string& verdict) const {
  return static_cast<int>(std::count_if(variants.begin(), variants.end(),
                                        [&](const auto& v) { return v.verdict == verdict; }));
}

FolderComparison compare_folders(const Results& before, const Results& after,
                                 const MetricInfo& metric, double tolerance) {
  FolderComparison c;
  c.before_folder = before.folder;
  c.after_folder = after.folder;
  c.before_suite = before.suite;
  c.after_suite = after.suite;
  c.before_records = before.records.size();
  c.after_records = after.records.size();
  c.metric = &metric;
  c.tolerance = tolerance;
  const auto before_identity = identity_value_counts(environments(before));
  const auto after_identity = identity_value_counts(environments(after));
  c.identity_differences = identity_differences(before_identity, after_identity);
  c.identity_keys_only_before = identity_keys_missing_from(before_identity, after_identity);
  c.identity_keys_only_after = identity_keys_missing_from(after_identity, before_identity);
  c.machine_speed = compare_machine_speed(before, after);
  c.contention_before = cpu_contention_of_runs(before);
  c.contention_after = cpu_contention_of_runs(after);
  c.flagged_before = flagged_runs(before.records);
  c.flagged_after = flagged_runs(after.records);
  c.page_fault_shifts = variant_page_fault_shifts(before, after);

  const auto before_samples = samples_of(before, metric);
  const auto after_samples = samples_of(after, metric);
  for (const auto& which : variants_in_order(before)) {
    if (after_samples.count(which) == 0) {
      c.only_before.push_back(which.first + "/" + which.second);
      continue;
    }
    c.variants.push_back(compare_variant(before_samples.at(which), after_samples.at(which), which,
                                         metric, tolerance));
  }
  for (const auto& which : variants_in_order(after)) {
    if (before_samples.count(which) == 0) c.only_after.push_back(which.first + "/" + which.second);
  }
  std::vector<MetricComparison*> compared;
  for (auto& v : c.variants) {
    if (v.change.defined) compared.push_back(&v.change);
  }
  adjust_p_values(compared);
  if (c.variants.empty()) {
    throw ConfigError(after.records_path, "",
                      "shares no (workload, variant) with " + before.records_path +
                          ": nothing to compare (compare takes two runs of one suite, or of "
                          "suites with common workloads and variants)");
  }

  const auto after_comparisons = planned_comparisons(after);
  for (const auto& comparison : planned_comparisons(before)) {
    const bool in_both = std::any_of(
        after_comparisons.begin(), after_comparisons.end(), [&](const Comparison& other) {
          return other.workload == comparison.workload && other.variant == comparison.variant &&
                 other.baseline == comparison.baseline;
        });
    if (in_both) {
      c.effects.push_back(compare_effect(before, after, before_samples, after_samples, comparison,
                                         metric, tolerance));
    }
  }
  // The effect changes' p-values adjusted together, as the variants' are (those without a test
  // left out of the family).
  std::vector<EffectChange*> tested;
  for (auto& e : c.effects) {
    if (e.has_p_value) tested.push_back(&e);
  }
  adjust_p_values(tested);
  return c;
}

}  // namespace speedbench::report
