#include "harness/report/page_fault_shifts.h"
#include "harness/report/report_text.h"
#include "harness/report/report_writer.h"
#include "harness/report/run_health.h"

namespace speedbench::report {

namespace {

// "measurement health: 3 of 20 runs flagged (noisy steps: 3) ...", or "" where no run is.
std::string health_line(const Results& results) {
  const auto flagged = flagged_runs(results.records);
  if (flagged.flagged == 0) return "";
  return "measurement health: " + flagged_runs_text(flagged) +
         ": which and why in the report's Measurement health section\n";
}

// "page faults moved with the variant in 2 comparisons (resnet8 sync_avoidance, ...): ...", or ""
// where none did.
std::string page_fault_shifts_line(const ReportInputs& in) {
  const auto shifts = page_fault_shifts(in.results, in.comparisons);
  if (shifts.empty()) return "";
  std::vector<std::string> names;
  for (const auto& s : shifts) names.push_back(s.workload + " " + s.technique);
  return "page faults moved with the variant in " + std::to_string(shifts.size()) +
         (shifts.size() == 1 ? " comparison (" : " comparisons (") + joined(names, ", ") +
         "): part of a ratio may be the host allocator's; see the report's Measurement health "
         "section\n";
}

}  // namespace

std::string console_summary(const ReportInputs& in) {
  if (in.comparisons.empty()) return no_comparisons_text(in.results) + "\n";
  std::vector<std::vector<std::string>> rows = {{"workload", "technique", "n",
                                                 "throughput x [95% CI]", "q", "training memory x",
                                                 "accuracy delta"}};
  for (const auto& r : in.comparisons) {
    const auto& c = r.comparison;
    if (r.status != "ok") {
      rows.push_back({c.workload, c.label, r.status + ": " + r.reason.substr(0, 80)});
    } else {
      rows.push_back({c.workload, c.label,
                      std::to_string(r.baseline_ok) + "/" + std::to_string(r.variant_ok),
                      metric_text(r, "throughput"), q_text(r.metric("throughput")),
                      metric_text(r, "step_bytes"), metric_text(r, "accuracy")});
    }
  }
  return console_table(rows) +
         "q: the throughput ratio's p-value adjusted over the report's comparisons "
         "(Benjamini-Hochberg)\n" +
         health_line(in.results) + page_fault_shifts_line(in);
}

}  // namespace speedbench::report
