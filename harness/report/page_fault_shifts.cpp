#include "harness/report/page_fault_shifts.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "harness/measure/statistics.h"
#include "harness/report/report_text.h"

namespace speedbench::report {

namespace {

using WorkloadVariant = std::pair<std::string, std::string>;

// Per (workload, variant): the median of page faults per step over the ok runs that counted them.
std::map<WorkloadVariant, double> page_fault_medians(const Results& results) {
  const auto* metric = find_metric("page_faults_per_step");
  std::map<WorkloadVariant, std::vector<double>> values;
  for (const auto& r : results.records) {
    if (r.status != RunStatus::kOk) continue;
    if (const auto per_step = metric->value(r))
      values[{r.workload, r.variant}].push_back(*per_step);
  }
  std::map<WorkloadVariant, double> medians;
  for (const auto& [which, per_step] : values) medians[which] = measure::summarize(per_step).median;
  return medians;
}

std::vector<const Record*> ok_runs_of(const Results& results, const WorkloadVariant& which) {
  std::vector<const Record*> runs;
  for (const auto& r : results.records) {
    if (r.status == RunStatus::kOk && r.workload == which.first && r.variant == which.second)
      runs.push_back(&r);
  }
  return runs;
}

bool kept_freed_host_memory(const std::vector<const Record*>& runs) {
  return std::any_of(runs.begin(), runs.end(), [](const Record* r) {
    const auto& on = r->techniques_on;
    return std::find(on.begin(), on.end(), "host_memory_reuse") != on.end();
  });
}

// Every run held a seed-drawn block (harness/train/heap_layout_draw.h), so that the repetitions
// sampled the heap's layout; false where there are none.
bool drew_heap_layouts(const std::vector<const Record*>& runs) {
  return !runs.empty() && std::all_of(runs.begin(), runs.end(), [](const Record* r) {
    return r->metrics.heap_layout_bytes > 0;
  });
}

std::string shifts_table(const std::vector<PageFaultShift>& shifts) {
  std::ostringstream out;
  out << table_header({"workload", "technique", "page faults per step, baseline -> variant"});
  for (const auto& s : shifts) {
    out << table_row({s.workload, s.technique,
                      format_number("%.0f", s.baseline_per_step) + " -> " +
                          format_number("%.0f", s.variant_per_step)});
  }
  return out.str();
}

}  // namespace

bool page_faults_moved(double a_per_step, double b_per_step) {
  const double fewer = std::min(a_per_step, b_per_step);
  const double more = std::max(a_per_step, b_per_step);
  return more - fewer >= kPageFaultShiftPerStep && more >= kPageFaultShiftFactor * fewer;
}

std::string page_faults_moved_criterion() {
  return "medians at least " + format_number("%.0f", kPageFaultShiftPerStep) + " apart and " +
         format_number("%g", kPageFaultShiftFactor) + "x";
}

std::vector<PageFaultShift> page_fault_shifts(const Results& results,
                                              const std::vector<ComparisonResult>& comparisons) {
  std::vector<PageFaultShift> shifts;
  for (const auto& c : comparisons) {
    if (c.status != "ok" || c.comparison.label == "host_memory_reuse") continue;
    const auto* faults = c.metric("page_faults_per_step");
    if (faults == nullptr || faults->n_baseline == 0 || faults->n_variant == 0) continue;
    if (!page_faults_moved(faults->baseline_median, faults->variant_median)) continue;
    const auto baseline_runs = ok_runs_of(results, {c.comparison.workload, c.comparison.baseline});
    const auto variant_runs = ok_runs_of(results, {c.comparison.workload, c.comparison.variant});
    shifts.push_back({c.comparison.workload, c.comparison.label, faults->baseline_median,
                      faults->variant_median, kept_freed_host_memory(baseline_runs),
                      drew_heap_layouts(baseline_runs) && drew_heap_layouts(variant_runs)});
  }
  return shifts;
}

std::string page_fault_shifts_text(const std::vector<PageFaultShift>& shifts,
                                   const std::string& suite_file) {
  std::vector<PageFaultShift> allocator, heap_kept;
  for (const auto& s : shifts) (s.heap_kept ? heap_kept : allocator).push_back(s);
  // Whether the repetitions could show the faults: only where each run drew its heap's layout.
  const auto drawn = [](const std::vector<PageFaultShift>& group) {
    return std::all_of(group.begin(), group.end(),
                       [](const PageFaultShift& s) { return s.layouts_drawn; });
  };
  const std::string sampled =
      "Their runs drew their heaps' layouts (heap_layout_bytes), so the interval holds the "
      "faults' spread from layout to layout, and medians this far apart are ";
  std::ostringstream out;
  const auto these_variants =
      "\nThese variants fault in a very different number of fresh pages a step than their "
      "baselines (" +
      page_faults_moved_criterion() + ")";
  if (!allocator.empty()) {
    std::vector<std::string> techniques;
    for (const auto& s : allocator) {
      if (std::find(techniques.begin(), techniques.end(), s.technique) == techniques.end())
        techniques.push_back(s.technique);
    }
    out << these_variants
        << ": on one side the host allocator gives memory back to the kernel and takes it "
           "again each step (glibc's malloc maps a block afresh when it is above its mmap "
           "threshold, which moves with the process's allocation history and stops at 32 MiB). "
        << (drawn(allocator)
                ? sampled +
                      "the technique's allocations meeting the allocator: part of the ratio "
                      "may be that, not the technique's own work."
                : std::string("Every repetition repeats that, so the interval cannot show it: "
                              "part of the ratio may be how the technique's allocations meet "
                              "the allocator, not the technique."))
        << " To measure the techniques alone, run them again with host_memory_reuse on in every "
           "variant, as suites/cpu-accumulation.json and suites/cpu-allocator.json do: "
           "`speedbench run --suite "
        << (suite_file.empty() ? "SUITE" : suite_file) << " --only " << joined(techniques, ",")
        << " --base '{\"techniques\": {\"host_memory_reuse\": true}}'`.\n\n"
        << shifts_table(allocator);
  }
  if (!heap_kept.empty()) {
    out << these_variants
        << " although the baselines kept freed host memory (host_memory_reuse: glibc serves "
           "every block from its heap and keeps what is freed), so the faults are not glibc's mmap "
           "threshold: the heap grew during the timed steps, or memory came from another "
           "allocator. "
        << (drawn(heap_kept) ? sampled +
                                   "how the technique's allocations grow the heap; a rerun "
                                   "with host_memory_reuse would change nothing."
                             : std::string("Every repetition repeats them, so the interval cannot "
                                           "show their share of the ratio, and a rerun with "
                                           "host_memory_reuse would change nothing."))
        << "\n\n"
        << shifts_table(heap_kept);
  }
  return out.str();
}

std::vector<VariantPageFaultShift> variant_page_fault_shifts(const Results& before,
                                                             const Results& after) {
  const auto before_medians = page_fault_medians(before);
  const auto after_medians = page_fault_medians(after);
  std::vector<VariantPageFaultShift> shifts;
  std::set<WorkloadVariant> listed;
  for (const auto& r : before.records) {
    const WorkloadVariant which{r.workload, r.variant};
    const auto b = before_medians.find(which);
    const auto a = after_medians.find(which);
    if (b == before_medians.end() || a == after_medians.end() || !listed.insert(which).second)
      continue;
    if (page_faults_moved(b->second, a->second))
      shifts.push_back({r.workload, r.variant, b->second, a->second});
  }
  return shifts;
}

}  // namespace speedbench::report
