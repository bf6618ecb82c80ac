// The JSON form of a folder comparison (run_folder_comparison.h), for machines: compare --json.
#include "harness/report/cpu_contention.h"
#include "harness/report/run_folder_comparison.h"

namespace speedbench::report {

namespace {

// {"flagged_runs": 9, "records": 123, "runs_per_kind": {"noisy steps": 9}}
nlohmann::json flagged_runs_json(const FlaggedRuns& flagged) {
  nlohmann::json per_kind = nlohmann::json::object();
  for (const auto& [kind, runs] : flagged.runs_per_kind) per_kind[kind] = runs;
  return {
      {"flagged_runs", flagged.flagged}, {"records", flagged.records}, {"runs_per_kind", per_kind}};
}

}  // namespace

nlohmann::json folder_comparison_json(const FolderComparison& c) {
  auto interval_json = [](const measure::Interval& i) {
    return nlohmann::json{{"estimate", i.estimate}, {"low", i.low}, {"high", i.high}};
  };
  nlohmann::json identity = nlohmann::json::array();
  for (const auto& d : c.identity_differences)
    identity.push_back({{"key", d.key}, {"before", d.before}, {"after", d.after}});
  nlohmann::json page_fault_shifts = nlohmann::json::array();
  for (const auto& s : c.page_fault_shifts) {
    page_fault_shifts.push_back({{"workload", s.workload},
                                 {"variant", s.variant},
                                 {"before_per_step", s.before_per_step},
                                 {"after_per_step", s.after_per_step}});
  }
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& v : c.variants) {
    nlohmann::json j = {{"workload", v.workload},
                        {"variant", v.variant},
                        {"before_ok", v.before_ok},
                        {"after_ok", v.after_ok},
                        {"verdict", v.verdict},
                        {"reason", v.reason},
                        {"config_differences", v.config_differences}};
    if (v.change.defined) {
      j["n_before"] = v.change.n_baseline;
      j["n_after"] = v.change.n_variant;
      j["before_median"] = v.change.baseline_median;
      j["after_median"] = v.change.variant_median;
      j["change"] = interval_json(v.change.interval);
      j["no_interval"] = lacks_interval(v.change);  // a side with one run: a single ratio
      j["p_value"] = v.change.p_value;
      j["q_value"] = v.change.q_value;
      j["paired"] = v.change.paired();
    }
    variants.push_back(j);
  }
  const auto& speed = c.machine_speed;
  nlohmann::json machine_speed = {{"dtype", "fp32"}, {"reason", speed.reason}};
  if (speed.peak.defined) {
    machine_speed["matrix_size"] = speed.matrix_size;
    machine_speed["n_before"] = speed.peak.n_baseline;
    machine_speed["n_after"] = speed.peak.n_variant;
    machine_speed["before_median_flops_per_s"] = speed.peak.baseline_median;
    machine_speed["after_median_flops_per_s"] = speed.peak.variant_median;
    machine_speed["change"] = interval_json(speed.peak.interval);
  }
  nlohmann::json effects = nlohmann::json::array();
  for (const auto& e : c.effects) {
    nlohmann::json j = {{"workload", e.workload}, {"label", e.label},     {"variant", e.variant},
                        {"baseline", e.baseline}, {"verdict", e.verdict}, {"reason", e.reason}};
    if (e.defined) {
      j["before"] = interval_json(e.before.interval);
      j["after"] = interval_json(e.after.interval);
      j["change"] = interval_json(e.change);
      j["no_interval"] = lacks_interval(e.fewest_runs);
      j["paired"] = e.paired;
      j["within_folder_pairs"] = e.within_folder_pairs;
      if (e.has_p_value) {
        j["p_value"] = e.p_value;
        j["q_value"] = e.q_value;
      }
    }
    effects.push_back(j);
  }
  return {{"before",
           {{"folder", c.before_folder}, {"suite", c.before_suite}, {"records", c.before_records}}},
          {"after",
           {{"folder", c.after_folder}, {"suite", c.after_suite}, {"records", c.after_records}}},
          {"metric", c.metric->id},
          {"lower_is_better", c.metric->lower_is_better},
          {"tolerance", c.tolerance},
          {"identity_differences", identity},
          {"identity_keys_only_before", c.identity_keys_only_before},
          {"identity_keys_only_after", c.identity_keys_only_after},
          {"machine_speed", machine_speed},
          {"other_load",
           {{"before", other_load_json(c.contention_before)},
            {"after", other_load_json(c.contention_after)}}},
          {"cpu_wait",
           {{"before", cpu_wait_json(c.contention_before)},
            {"after", cpu_wait_json(c.contention_after)}}},
          {"quota_throttling",
           {{"before", quota_throttling_json(c.contention_before)},
            {"after", quota_throttling_json(c.contention_after)}}},
          {"measurement_health",
           {{"before", flagged_runs_json(c.flagged_before)},
            {"after", flagged_runs_json(c.flagged_after)}}},
          {"page_fault_shifts", page_fault_shifts},
          {"variants", variants},
          {"effects", effects},
          {"only_before", c.only_before},
          {"only_after", c.only_after}};
}

}  // namespace speedbench::report
