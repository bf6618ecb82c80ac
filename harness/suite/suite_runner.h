// Runs a suite's plan, each run in a child process (`speedbench run-one`) so that every run
// starts with a fresh allocator and caches, and a crash kills only its own run: the parent then
// records it as `crashed` and the suite goes on.
#pragma once

#include <string>

#include "harness/suite/suite.h"

namespace speedbench {

struct SuiteRunOptions {
  std::string results_root = "results";
  std::string executable;  // this binary (for the child processes)
  std::string data_root;   // passed to each run when set
};

struct SuiteRunSummary {
  std::string records_path;  // results/<suite>/<run-id>/runs.jsonl
  int runs = 0;
  int ok = 0;
  int crashed = 0;         // the harness failed: the suite's exit code says so
  int diverged_or_oom = 0; // results, not failures of the harness
  int not_applicable = 0;
};

SuiteRunSummary run_suite(const Suite& suite, const SuiteRunOptions& options);

}  // namespace speedbench
