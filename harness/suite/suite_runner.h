// Runs a suite's plan, each run in a child process (`speedbench run-one`) so that every run
// starts with a fresh allocator and caches, and a crash kills only its own run: the parent then
// records it as `crashed` and the suite goes on. The folder also gets plan.json (the plan and the
// comparisons: what the report reads, what --resume checks). SIGINT/SIGTERM stop the suite after
// passing the signal on to the run in flight, which writes nothing: --resume reruns just that one.
// With a time budget the suite stops between runs instead, once the next would not fit.
// With a second binary (`--against`, another speedbench build) every planned run is made twice,
// back to back, once by each binary, the order alternating by repetition: the two builds then
// see the same machine state, and `speedbench compare` of the two folders measures the builds,
// not the drift between two runs made at different times.
#pragma once

#include <optional>
#include <string>

#include "harness/suite/run_folder.h"
#include "harness/suite/speedbench_binary.h"
#include "harness/suite/suite.h"

namespace speedbench {

struct SuiteRunOptions {
  std::string results_root = "results";
  SpeedbenchBinary binary;                  // this one (for the child processes)
  std::optional<SpeedbenchBinary> against;  // a second build whose runs go to <run folder>/against/
  std::string data_root;                    // passed to each run when set
  bool resume = false;       // continue the newest run folder of this suite with the same plan
  double time_budget_s = 0;  // start no run that would end past this (run_time_budget.h); 0: none
};

struct SuiteRunSummary {
  std::string records_path;          // results/<suite>/<run-id>/runs.jsonl
  std::string against_records_path;  // results/<suite>/<run-id>/against/runs.jsonl, or ""
  int runs = 0;
  int ok = 0;
  int crashed = 0;          // the harness failed: the suite's exit code says so
  int diverged_or_oom = 0;  // results, not failures of the harness
  int not_applicable = 0;
  int skipped = 0;           // already recorded (--resume)
  bool interrupted = false;  // SIGINT/SIGTERM: the run in flight was dropped, the rest not started
};

// Throws ConfigError when --resume finds no earlier run with the same plan, or, with --against,
// finds it was made by other builds (speedbench_binary.h).
SuiteRunSummary run_suite(const Suite& suite, const SuiteRunOptions& options);

// In a child the runner (or the DDP launcher) started: die with it. A runner killed with SIGKILL
// cannot stop its child, so the child asks the kernel for SIGKILL when its parent goes; it would
// otherwise write a record after the runner is gone (and --resume would run it twice).
void die_with_parent_if_asked();

// The variable through which a parent asks for that (set to its pid).
inline constexpr const char* kParentPidVariable = "SPEEDBENCH_PARENT_PID";

// The CLI prints a failed command's one-line error after this prefix; the runner finds a failed
// child's error by it and keeps it in the run's crash record.
inline constexpr const char* kErrorLinePrefix = "speedbench: error: ";

}  // namespace speedbench
