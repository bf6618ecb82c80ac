// The CLI's commands, one function each (argument parsing stays in main.cpp).
#pragma once

#include <string>
#include <vector>

#include "harness/suite/run_one.h"

namespace speedbench {

struct RunOneArgs {
  std::string config_path;
  std::string results_root = "results";
  std::string records_path;  // "" = <results_root>/<suite>/<run-id>/runs.jsonl
  std::string data_root;
  RunIdentity identity;
  bool quiet = false;
  bool brief = false;  // a one-line summary (under the suite runner's progress line)
  int nproc = 0;       // > 0: DDP with this many local worker processes (overrides the config)
  // Force deterministic algorithms (the config's threads and seed hold).
  bool deterministic = false;
};

struct RunSuiteArgs {
  std::string suite_path;
  std::string results_root = "results";
  std::string data_root;
  std::string against_executable;  // "" = none; else a second build, run back to back with this
  bool resume = false;
  std::vector<std::string> only, exclude;
  int64_t repetitions = 0;   // 0: the suite's
  std::string base_patch;    // --base: a JSON merge patch on the suite's base ("" = none)
  double time_budget_s = 0;  // 0: none
  bool plan = false;         // print what would run (suite_plan_text.h), run nothing
};

// The claims registry that report and verify read unless --claims names another (relative to the
// working folder: run from the clone's root, as the scripts do).
inline constexpr const char* kDefaultClaimsPath = "suites/claims.json";

struct ReportArgs {
  std::string results_dir;  // a run folder or its runs.jsonl
  // "" = kDefaultClaimsPath: report goes on without it where it is missing, verify needs it. A
  // path given with --claims must be readable: a typo must not silently drop a report's verdicts.
  std::string claims_path;
  bool claims_required = false;
  // report: a Google Benchmark JSON to fold in ("" = DIR/micro.json if there is one)
  std::string micro_path;
};

struct CompareArgs {
  // Run folders or their runs.jsonl; no after: before is a run --against folder, its against/
  // the before.
  std::string before_dir, after_dir;
  std::string metric = "throughput";
  double tolerance = 0.05;
  bool gate = false;          // exit 1 when a variant regressed or failed
  std::string markdown_path;  // "" = none
  std::string json_path;      // "" = none
};

struct ReproduceArgs {
  std::string records_path;  // a runs.jsonl
  int64_t line = 0;          // which record (1-based); 0 = the last
  std::string out_path;      // append the rerun's record here ("" = nowhere)
  std::string data_root;
};

struct LrFindArgs {
  std::string config_path;
  std::string out_path;  // "" = no file
  std::string data_root;
  double start_lr = 1e-5;
  double end_lr = 10.0;
  int64_t steps = 100;
};

// Each returns the process exit code.
int command_run_one(const RunOneArgs& args);
int command_run_suite(const RunSuiteArgs& args);
int command_list();
int command_lr_find(const LrFindArgs& args);
int command_reproduce(const ReproduceArgs& args);  // 1 when an exact check differs
// report_commands.cpp
int command_report(const ReportArgs& args);  // writes report.md and summary.json into the folder
int command_verify(const ReportArgs& args);  // 1 when a gating claim is not confirmed
// compare_command.cpp: 1 with --gate when a variant regressed or failed
int command_compare(const CompareArgs& args);

}  // namespace speedbench
