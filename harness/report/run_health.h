// What makes one run's numbers less trustworthy: noisy steps, other load while it trained (other
// processes, or a hypervisor that gave the run's virtual CPUs to other guests), its threads
// waiting for a CPU (whatever the cause: other load, its own threads, a cgroup quota), its cgroup
// CPU quota stopping it, more LibTorch threads than cores, CPU frequency scaling, a machine whose
// matmul peak moved between the run's start and end, an MFU its matmul probes could not bound. The
// report's "Measurement health" section lists the flagged runs, and summary.json's flagged_runs
// gives them to machines (a CI job can refuse a run folder from a loaded machine).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/results/record.h"

namespace speedbench::report {

// A coefficient of variation (over repetitions, or over one run's steps) above this is flagged.
inline constexpr double kNoisyCv = 0.10;
// Other processes' load (cores they kept busy while the run trained; in records of builds before
// 2026-12-06, over the 250 ms before it started) beyond the cores the run left idle or its CPU
// quota kept it from, or the hypervisor's steal, above this is flagged.
inline constexpr double kBusyCoresOfOthers = 0.25;
// The run's threads that waited for a CPU, on average while it trained, above this is flagged (a
// quiet 2-core machine: about 0.01).
inline constexpr double kCpuWaitThreads = 0.25;
// The share of its cgroup CPU quota's periods in which the quota stopped the run, above this is
// flagged (a one-thread run under a 1-core quota on a quiet 2-core machine: 0.02; two threads
// under it: 1.0).
inline constexpr double kQuotaThrottledShare = 0.1;
// The faster of a run's two matmul peaks (timed at its start and its end) over the slower, above
// this is flagged: the machine's speed moved within the run (120 quiet runs here: 1.08 at most; a
// probe that lost one of 2 cores: about 2).
inline constexpr double kPeakProbesApart = 1.25;

// A run's two matmul peaks, timed at its start and at its end, for the dtype it measured.
struct MatmulPeakProbes {
  std::string dtype;
  double at_start = 0;  // FLOP/s
  double at_end = 0;
  double end_over_start() const { return at_end / at_start; }
  // More than kPeakProbesApart apart, either way: flagged "peak moved".
  bool moved() const;
};
// Nothing for a record with one probe (a run that did not end ok, or from before 2026-12-07).
std::optional<MatmulPeakProbes> matmul_peak_probes(const Record& r);

// One reason to distrust a run's numbers.
struct HealthFlag {
  std::string kind;  // what it is, the same for every run: "noisy steps", "waited for a CPU"
  std::string text;  // with the run's numbers: "step-time CV 16% > 10%"
};

// One ok run's flags, in the report's order; none for a run that is not ok.
std::vector<HealthFlag> run_health_flags(const Record& r);
// Their texts alone, as the report's table and a run's summary give them.
std::vector<std::string> run_health_flag_texts(const Record& r);

// How many of a folder's runs are flagged, in all and by kind.
struct FlaggedRuns {
  size_t flagged = 0;  // runs with a flag
  size_t records = 0;  // runs looked at
  // Runs with a flag of each kind (a run has at most one a kind), in the order kinds first appear.
  std::vector<std::pair<std::string, size_t>> runs_per_kind;
};
FlaggedRuns flagged_runs(const std::vector<Record>& records);

// "9 of 123 runs flagged (noisy steps: 9, waited for a CPU: 2)", or "none of 123 runs flagged".
std::string flagged_runs_text(const FlaggedRuns& flagged);

}  // namespace speedbench::report
