#include "harness/report/page_fault_shifts.h"

#include <algorithm>
#include <sstream>

#include "harness/report/report_text.h"

namespace speedbench::report {

std::vector<PageFaultShift> page_fault_shifts(const std::vector<ComparisonResult>& comparisons) {
  std::vector<PageFaultShift> shifts;
  for (const auto& c : comparisons) {
    if (c.status != "ok" || c.comparison.label == "host_memory_reuse") continue;
    const auto* faults = c.metric("page_faults_per_step");
    if (faults == nullptr || faults->n_baseline == 0 || faults->n_variant == 0) continue;
    const double fewer = std::min(faults->baseline_median, faults->variant_median);
    const double more = std::max(faults->baseline_median, faults->variant_median);
    if (more - fewer < kPageFaultShiftPerStep || more < kPageFaultShiftFactor * fewer) continue;
    shifts.push_back({c.comparison.workload, c.comparison.label, faults->baseline_median,
                      faults->variant_median});
  }
  return shifts;
}

std::string page_fault_shifts_text(const std::vector<PageFaultShift>& shifts) {
  if (shifts.empty()) return "";
  std::ostringstream out;
  out << "\nThese variants fault in a very different number of fresh pages a step than their "
         "baselines (medians at least "
      << format_number("%.0f", kPageFaultShiftPerStep) << " apart and "
      << format_number("%g", kPageFaultShiftFactor)
      << "x): on one side the host allocator gives memory back to the kernel and takes it again "
         "each step (glibc's malloc maps a block afresh when it is above its mmap threshold, "
         "which moves with the process's allocation history and stops at 32 MiB). Every "
         "repetition repeats that, so the interval cannot show it: part of the ratio may be how "
         "the technique's allocations meet the allocator, not the technique. To measure the "
         "technique alone, run both variants with host_memory_reuse on (as "
         "suites/cpu-accumulation.json and suites/cpu-allocator.json do):\n\n"
      << table_header({"workload", "technique", "page faults per step, baseline -> variant"});
  for (const auto& s : shifts) {
    out << table_row({s.workload, s.technique,
                      format_number("%.0f", s.baseline_per_step) + " -> " +
                          format_number("%.0f", s.variant_per_step)});
  }
  return out.str();
}

}  // namespace speedbench::report
