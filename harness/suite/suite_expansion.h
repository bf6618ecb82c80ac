// How a suite's design turns its workloads and toggles into variants, comparisons and the plan of
// runs. Internal to harness/suite/: suite.cpp reads the suite's JSON into these types and calls
// expand_suite.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/suite/suite.h"

namespace speedbench {

// A change to a workload's config: a technique toggle (one_at_a_time, leave_one_out) or a grid
// or scaling variant.
struct Toggle {
  std::string name;                    // technique id or variant name
  nlohmann::json patch;                // merged over the workload's config
  bool turns_off = false;              // technique on by default; the patch turns it off
  std::vector<std::string> workloads;  // empty: every workload
  std::string source;                  // where it is defined, for error messages
};

struct SuiteWorkload {
  std::string name;
  nlohmann::json config_json;
};

// one_at_a_time and leave_one_out toggle techniques; grid and scaling compare named variants.
bool is_technique_design(const std::string& design);

// Keeps the toggles `selection` keeps (a grid's or scaling's first, its baseline, always), adds
// every workload's variants and comparisons by suite.design (one_at_a_time, leave_one_out, grid,
// scaling), each variant's config checked and each technique variant checked to switch its
// technique; then the plan: suite.repetitions rounds, in order "interleaved" or "shuffled".
void expand_suite(Suite& suite, const std::vector<SuiteWorkload>& workloads,
                  std::vector<Toggle> toggles, const SuiteSelection& selection,
                  const std::string& order);

}  // namespace speedbench
