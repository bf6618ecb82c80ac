// A run folder's report in three forms: markdown for people (markdown_report.cpp: the main table
// first, then the claims and the details of the comparisons; run_sections.cpp: the variants'
// tables, measurement health and the environment), JSON for machines and plots
// (summary_json.cpp), and a console table (console_summary.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/report/claims.h"
#include "harness/report/comparisons.h"

namespace speedbench::report {

struct ReportInputs {
  const Results& results;
  const std::vector<ComparisonResult>& comparisons;
  const std::vector<Claim>& claims;
  const std::vector<ClaimVerdict>& verdicts;
};

std::string markdown_report(const ReportInputs& in);
nlohmann::json summary_json(const ReportInputs& in);
std::string console_summary(const ReportInputs& in);
std::string verdict_table(const std::vector<ClaimVerdict>& verdicts);

}  // namespace speedbench::report
