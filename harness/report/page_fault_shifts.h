// Comparisons whose variant faults in far more or far fewer pages a step than its baseline. A
// minor page fault is the kernel handing the process a fresh page (zeroed on first touch); many a
// step means the host allocator gives memory back and takes it again each step: glibc's malloc
// maps every block above its mmap threshold afresh and unmaps it when freed, and that threshold
// moves with the process's allocation history (up to 32 MiB). A technique that changes a step's
// allocations, even a little, can then move its ratio through the allocator rather than its own
// mechanism, the same way in every repetition: 4-way accumulation on the CPU reference's
// character LSTM was 1.26x with glibc's defaults and 0.965x with host_memory_reuse in both
// variants (results/reference/cpu-accumulation/). The report lists them under "Measurement
// health", those whose baseline kept the heap (host_memory_reuse) apart. Torch-free.
#pragma once

#include <string>
#include <vector>

#include "harness/report/comparisons.h"

namespace speedbench::report {

// Medians of page faults per step that differ by at least this many pages (4 MiB of 4 KiB
// pages) and by at least kPageFaultShiftFactor are listed. At the ~1.4 us a fault cost on the
// development VM (the character LSTM's 10,400 faults a step were ~15 ms of a 64 ms step), 1000
// faults are ~1.4 ms a step: a few percent of the steps measured here.
inline constexpr double kPageFaultShiftPerStep = 1000;
inline constexpr double kPageFaultShiftFactor = 2;

// Whether two medians of page faults per step are that far apart.
bool page_faults_moved(double a_per_step, double b_per_step);
// The criterion in words, as the report and compare state it: "medians at least 1000 apart and 2x".
std::string page_faults_moved_criterion();

struct PageFaultShift {
  std::string workload;
  std::string technique;         // the comparison's label
  double baseline_per_step = 0;  // medians over the ok runs
  double variant_per_step = 0;
  // The baseline's runs kept freed host memory (host_memory_reuse, as the CPU presets' base
  // has it): glibc mapped no block afresh, so the faults came from elsewhere, and a rerun with
  // host_memory_reuse would change nothing.
  bool heap_kept = false;
  // Every run of both sides drew its heap's layout (heap_layout_bytes, since 2026-12-07): the
  // repetitions sampled layouts, and the interval holds the faults' spread over them; before,
  // every repetition repeated one layout's faults.
  bool layouts_drawn = false;
};

// The ok comparisons whose medians of page faults per step moved that much, in report order;
// none for host_memory_reuse itself, whose mechanism the faults are, or for records that did not
// count them (builds before 2026-12-07). `results` are the comparisons' records.
std::vector<PageFaultShift> page_fault_shifts(const Results& results,
                                              const std::vector<ComparisonResult>& comparisons);

// A paragraph and a table of them for the report's "Measurement health", with the command that
// reruns them with the allocator's effect taken out (`suite_file`: the plan's, or "" where the
// records came without one), or "" where there are none.
std::string page_fault_shifts_text(const std::vector<PageFaultShift>& shifts,
                                   const std::string& suite_file);

// `compare`'s side: one (workload, variant) that both folders ran, whose page faults per step
// moved between them (a build or machine that changed the allocations, even a little): part of
// its after / before may be the allocator's.
struct VariantPageFaultShift {
  std::string workload, variant;
  double before_per_step = 0;  // medians over the ok runs
  double after_per_step = 0;
};
// In BEFORE's record order; none where a side did not count them.
std::vector<VariantPageFaultShift> variant_page_fault_shifts(const Results& before,
                                                             const Results& after);

}  // namespace speedbench::report
