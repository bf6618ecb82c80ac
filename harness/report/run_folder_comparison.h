// `speedbench compare BEFORE AFTER`: two run folders of the same suite (or of suites that share
// workloads and variants) measured on two machines, with two builds, or on two days. Per metric:
//   - each (workload, variant) both have: AFTER / BEFORE with a bootstrap 95% interval, and a
//     verdict against a tolerance: did this variant regress?
//   - each technique comparison both have (variant vs baseline): its effect on each side and how
//     the effect changed, (after's ratio) / (before's ratio), with its own interval: does the
//     speedup hold on the other machine?
//   - the machine and build keys on which the two folders differ (environment_identity.h), and
//     per variant the config fields that differ: what the ratios compare besides time;
//   - the machines' speed as the runs measured it at start-up (machine_speed.h): did the machine
//     or the build move the variants?
// Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/report/comparisons.h"
#include "harness/report/cpu_contention.h"
#include "harness/report/machine_speed.h"
#include "harness/report/page_fault_shifts.h"
#include "harness/report/run_health.h"

namespace speedbench::report {

// A verdict on a change, with the tolerance t (0.05: 5%) and the metric's direction:
//   regressed     the interval lies wholly on the worse side of 1 -+ t (below 1 - t where higher
//                 is better, above 1 + t where lower is better)
//   improved      wholly on the better side of 1 +- t
//   unchanged     wholly within [1 - t, 1 + t]
//   inconclusive  otherwise, or with fewer than 2 runs on a side
std::string change_verdict(const measure::Interval& interval, bool lower_is_better,
                           double tolerance, int fewest_runs_on_a_side);

// The metrics `compare` takes: the ratio metrics (a difference metric such as accuracy has no
// relative tolerance).
std::vector<std::string> comparable_metric_ids();

// One (workload, variant) in both folders: AFTER / BEFORE.
struct VariantChange {
  std::string workload, variant;
  int before_ok = 0, after_ok = 0;  // runs with status ok
  MetricComparison change;          // baseline = BEFORE's runs, variant = AFTER's
  // change_verdict's; "failed" when it had ok runs before and none after (crashed, diverged, out
  // of memory); else "not_compared" (reason says why: not applicable, a metric runs lack, ...).
  std::string verdict;
  std::string reason;
  std::vector<std::string> config_differences;  // "max_steps", "techniques.amp" (seed left out)
};

// One technique comparison (variant vs baseline of one workload) in both folders.
struct EffectChange {
  std::string workload, label, variant, baseline;
  MetricComparison before, after;  // the technique's effect in each folder
  bool defined = false;
  measure::Interval change;  // after's ratio / before's ratio
  // Per repetition of one `run --against` (its four runs made in one sweep): the geometric mean
  // of the repetitions' changes with a Student-t interval. Else, where each folder's effect is
  // paired by repetition within it (within_folder_pairs), Welch's t interval of the change of
  // their logs' means; else all four samples resampled (bootstrap).
  bool paired = false;
  bool within_folder_pairs = false;
  // The two-sided p-value of the interval's t test (paired or Welch's) of "the effect did not
  // change", and q, the effect changes' p-values adjusted together (Benjamini-Hochberg). None
  // beside a bootstrap interval.
  bool has_p_value = false;
  double p_value = 1, q_value = 1;
  int fewest_runs = 0;  // of the four samples (lacks_interval: `change` is a single ratio)
  std::string verdict;  // change_verdict's (better = a larger speedup), or "not_compared"
  std::string reason;
};

// An identity key whose values differ between the folders (each side: its distinct values).
struct IdentityDifference {
  std::string key;
  std::vector<std::string> before, after;
};

struct FolderComparison {
  std::string before_folder, after_folder, before_suite, after_suite;
  size_t before_records = 0, after_records = 0;
  const MetricInfo* metric = nullptr;
  double tolerance = 0.05;
  std::vector<IdentityDifference> identity_differences;
  // Identity keys (top level: "cpu_isa" for its flags) that one folder's records have and the
  // other's lack, written by a version that predates them: the machines may differ there unseen.
  std::vector<std::string> identity_keys_only_before, identity_keys_only_after;
  MachineSpeedChange machine_speed;
  // What held each folder's ok runs back from the CPU while they trained.
  CpuContention contention_before, contention_after;
  // Each folder's runs that its report flags (run_health.h): a folder run on a loaded machine.
  FlaggedRuns flagged_before, flagged_after;
  // Variants whose page faults per step moved between the folders (page_fault_shifts.h).
  std::vector<VariantPageFaultShift> page_fault_shifts;
  std::vector<VariantChange> variants;               // in BEFORE's order
  std::vector<EffectChange> effects;                 // in BEFORE's plan order
  std::vector<std::string> only_before, only_after;  // "workload/variant"

  int count(const std::string& verdict) const;  // variants with this verdict
};

// Throws ConfigError when the folders share no (workload, variant): nothing to compare.
FolderComparison compare_folders(const Results& before, const Results& after,
                                 const MetricInfo& metric, double tolerance);

// The three forms, as for a report: console table, markdown, JSON.
std::string folder_comparison_console(const FolderComparison& c);
std::string folder_comparison_markdown(const FolderComparison& c);
nlohmann::json folder_comparison_json(const FolderComparison& c);

}  // namespace speedbench::report
