// The claims registry (suites/claims.json) and the verdicts `speedbench verify` gives them.
//   {"claims": [{"id": "checkpointing-memory", "technique": "checkpointing", "workload": "any",
//                "device": "cpu", "metric": "peak_bytes", "direction": "<=", "threshold": 0.8,
//                "gate": true, "source": "Chen et al. arXiv 1604.06174", "statement": "..."}]}
// A claim is judged on any results of its device. `gate_suite` (optional) limits its gate to
// the results of one suite (the one CI runs): elsewhere it is judged but gates nothing.
// `technique` is a comparison label: a technique id, "all", or a grid/scaling variant name.
// A ratio metric's threshold is on variant/baseline; accuracy's on the difference.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/report/comparisons.h"

namespace speedbench::report {

struct Claim {
  std::string id;
  std::string technique;
  std::string workload = "any";
  std::string device = "any";  // cpu | cuda | any
  std::string gate_suite;      // "" = gate on any suite's results; else only on that suite's
  std::string metric;
  std::string direction;  // ">=" or "<="
  double threshold = 0;
  bool gate = false;  // verify fails unless it is confirmed (on its device, gate_suite)
  std::string source;
  std::string statement;
};

// Strict: unknown keys, metrics or directions are ConfigErrors naming the claim.
std::vector<Claim> load_claims(const std::string& path);

struct ClaimVerdict {
  const Claim* claim = nullptr;
  std::string verdict;   // confirmed | refuted | inconclusive | not_run
  std::string workload;  // the comparison that decided it ("" when not run)
  bool measured = false;
  MetricComparison measurement;  // when measured: the deciding comparison's metric (interval, n)
  std::string reason;
  bool gates = false;  // gate, on the results' device and gate_suite: a failure fails verify
  // Each matching comparison's own verdict, (workload, verdict) in the comparisons' order.
  std::vector<std::pair<std::string, std::string>> by_workload;
};

// The interval against the threshold: confirmed when it clears it, refuted when it excludes it.
std::string verdict_for(const measure::Interval& interval, const std::string& direction,
                        double threshold);

// Each claim against the comparisons of its technique (every matching workload: the worst
// verdict wins, refuted > inconclusive > confirmed; among equals the estimate least favourable
// to the claim; the reason tallies the workloads' verdicts where more than one matched).
std::vector<ClaimVerdict> verify_claims(const std::vector<Claim>& claims,
                                        const std::vector<ComparisonResult>& comparisons,
                                        const Results& results);

// The claims that speak of one comparison (for the report's "claim" column).
std::vector<const Claim*> claims_for(const std::vector<Claim>& claims, const Comparison& comparison,
                                     const Results& results);

}  // namespace speedbench::report
