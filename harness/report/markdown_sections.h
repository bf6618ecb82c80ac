// The markdown report's sections that look at the runs one by one rather than at the
// comparisons: the per-variant tables, the measurement-health flags and the environment
// (run_sections.cpp). markdown_report.cpp puts them after the comparisons. Internal to
// harness/report/.
#pragma once

#include <string>

#include "harness/report/report_writer.h"
#include "harness/report/run_health.h"

namespace speedbench::report {

// Per (workload, variant): what its runs measured, medians over the ok ones.
std::string variant_tables(const Results& results);

// What makes a run's or a comparison's numbers less trustworthy: noisy steps, other load,
// frequency scaling, page faults that moved with the variant, fewer than kMinRunsPerSide
// repetitions.
std::string health_section(const ReportInputs& in);

// The first record's environment block, a key per row; then, where the records' machines or
// builds differ, each differing key's values and how many records have each.
std::string environment_section(const Results& results);

}  // namespace speedbench::report
