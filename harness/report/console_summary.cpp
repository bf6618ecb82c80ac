#include "harness/report/report_text.h"
#include "harness/report/report_writer.h"

namespace speedbench::report {

std::string console_summary(const ReportInputs& in) {
  if (in.comparisons.empty()) return no_comparisons_text(in.results) + "\n";
  std::vector<std::vector<std::string>> rows = {{"workload", "technique", "n",
                                                 "throughput x [95% CI]", "training memory x",
                                                 "accuracy delta"}};
  for (const auto& r : in.comparisons) {
    const auto& c = r.comparison;
    if (r.status != "ok") {
      rows.push_back({c.workload, c.label, r.status + ": " + r.reason.substr(0, 80)});
    } else {
      rows.push_back(
          {c.workload, c.label, std::to_string(r.baseline_ok) + "/" + std::to_string(r.variant_ok),
           metric_text(r, "throughput"), metric_text(r, "step_bytes"), metric_text(r, "accuracy")});
    }
  }
  return console_table(rows);
}

}  // namespace speedbench::report
