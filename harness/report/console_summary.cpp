#include <cstdio>
#include <sstream>

#include "harness/report/report_text.h"
#include "harness/report/report_writer.h"

namespace speedbench::report {

std::string console_summary(const ReportInputs& in) {
  if (in.comparisons.empty()) return no_comparisons_text(in.results) + "\n";
  std::ostringstream out;
  char line[256];
  std::snprintf(line, sizeof line, "%-14s %-18s %-7s %-24s %-24s %-26s\n", "workload", "technique",
                "n", "throughput x [95% CI]", "training memory x", "accuracy delta");
  out << line;
  for (const auto& r : in.comparisons) {
    const auto& c = r.comparison;
    if (r.status != "ok") {
      std::snprintf(line, sizeof line, "%-14s %-18s %s: %.80s\n", c.workload.c_str(),
                    c.label.c_str(), r.status.c_str(), r.reason.c_str());
    } else {
      std::snprintf(line, sizeof line, "%-14s %-18s %-7s %-24s %-24s %-26s\n", c.workload.c_str(),
                    c.label.c_str(),
                    (std::to_string(r.baseline_ok) + "/" + std::to_string(r.variant_ok)).c_str(),
                    metric_text(r, "throughput").c_str(), metric_text(r, "step_bytes").c_str(),
                    metric_text(r, "accuracy").c_str());
    }
    out << line;
  }
  return out.str();
}

}  // namespace speedbench::report
