#include "harness/report/cpu_contention.h"
#include "harness/report/page_fault_shifts.h"
#include "harness/report/report_writer.h"
#include "harness/report/run_health.h"

namespace speedbench::report {

namespace {

nlohmann::json interval_json(const MetricComparison& m) {
  nlohmann::json j = {{"n_baseline", m.n_baseline},
                      {"n_variant", m.n_variant},
                      {"baseline_median", m.baseline_median},
                      {"variant_median", m.variant_median},
                      {"baseline_cv", m.baseline_cv},
                      {"variant_cv", m.variant_cv},
                      {"defined", m.defined},
                      {"paired", m.paired()},
                      {"pairs", m.pairs},
                      {"t_interval", m.t_interval},
                      {"undercovers", interval_undercovers(m)},
                      {"no_interval", lacks_interval(m)},
                      {"p_value", m.p_value},
                      {"q_value", m.q_value},
                      {"note", m.note}};
  if (m.defined) {
    j["estimate"] = m.interval.estimate;
    j["low"] = m.interval.low;
    j["high"] = m.interval.high;
  }
  return j;
}

}  // namespace

nlohmann::json summary_json(const ReportInputs& in) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (const auto& r : in.comparisons) {
    nlohmann::json metrics = nlohmann::json::object();
    for (const auto& m : r.metrics) metrics[m.metric] = interval_json(m);
    nlohmann::json claimed = nlohmann::json::array();
    for (const auto* claim : claims_for(in.claims, r.comparison, in.results)) {
      claimed.push_back({{"id", claim->id},
                         {"metric", claim->metric},
                         {"direction", claim->direction},
                         {"threshold", claim->threshold}});
    }
    comparisons.push_back({{"workload", r.comparison.workload},
                           {"label", r.comparison.label},
                           {"baseline", r.comparison.baseline},
                           {"variant", r.comparison.variant},
                           {"status", r.status},
                           {"reason", r.reason},
                           {"baseline_ok", r.baseline_ok},
                           {"variant_ok", r.variant_ok},
                           {"metrics", metrics},
                           {"claims", claimed}});
  }
  nlohmann::json verdicts = nlohmann::json::array();
  for (const auto& v : in.verdicts) {
    nlohmann::json j = {{"id", v.claim->id},
                        {"technique", v.claim->technique},
                        {"metric", v.claim->metric},
                        {"direction", v.claim->direction},
                        {"threshold", v.claim->threshold},
                        {"gate", v.claim->gate},
                        {"verdict", v.verdict},
                        {"workload", v.workload},
                        {"reason", v.reason},
                        {"source", v.claim->source}};
    nlohmann::json by_workload = nlohmann::json::array();
    for (const auto& [workload, verdict] : v.by_workload) {
      by_workload.push_back({{"workload", workload}, {"verdict", verdict}});
    }
    j["by_workload"] = by_workload;
    if (v.measured) {
      j["estimate"] = v.measurement.interval.estimate;
      j["low"] = v.measurement.interval.low;
      j["high"] = v.measurement.interval.high;
    }
    verdicts.push_back(j);
  }
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& d : environment_differences(in.results)) {
    differences.push_back({{"key", d.key}, {"records_per_value", d.count_per_value}});
  }
  // As the report's "Measurement health" table: the ok runs with a flag, in record order.
  nlohmann::json flagged_runs = nlohmann::json::array();
  for (const auto& r : in.results.records) {
    const auto flags = run_health_flags(r);
    if (flags.empty()) continue;
    nlohmann::json texts = nlohmann::json::array(), kinds = nlohmann::json::array();
    for (const auto& flag : flags) {
      texts.push_back(flag.text);
      kinds.push_back(flag.kind);  // one name per kind, for a machine to select on
    }
    flagged_runs.push_back({{"workload", r.workload},
                            {"variant", r.variant},
                            {"repetition", r.repetition},
                            {"flags", texts},
                            {"kinds", kinds}});
  }
  // As the report's list under "Measurement health": comparisons whose page faults moved.
  nlohmann::json fault_shifts = nlohmann::json::array();
  for (const auto& s : page_fault_shifts(in.results, in.comparisons)) {
    fault_shifts.push_back({{"workload", s.workload},
                            {"technique", s.technique},
                            {"baseline_per_step", s.baseline_per_step},
                            {"variant_per_step", s.variant_per_step},
                            {"heap_kept", s.heap_kept},
                            {"layouts_drawn", s.layouts_drawn}});
  }
  const auto& first = in.results.records.front();
  const auto contention = cpu_contention_of_runs(in.results);
  return {{"suite", in.results.suite},
          {"device", in.results.device},
          {"design", in.results.plan.is_null() ? "" : in.results.plan.value("design", "")},
          {"records", in.results.records.size()},
          {"planned_runs", planned_run_count(in.results)},
          {"started_at", first.started_at},
          {"finished_at", in.results.records.back().finished_at},
          {"environment", first.environment},
          {"environment_differences", differences},
          {"flagged_runs", flagged_runs},
          {"page_fault_shifts", fault_shifts},
          {"other_load", other_load_json(contention)},
          {"cpu_wait", cpu_wait_json(contention)},
          {"quota_throttling", quota_throttling_json(contention)},
          {"comparisons", comparisons},
          {"claims", verdicts}};
}

}  // namespace speedbench::report
