// What makes one run's numbers less trustworthy: noisy steps, other load while it trained (other
// processes, or a hypervisor that gave the run's virtual CPUs to other guests), its threads
// waiting for a CPU (whatever the cause: other load, its own threads, a cgroup quota), more
// LibTorch threads than cores, CPU frequency scaling, an MFU its matmul probe could not bound. The
// report's "Measurement health" section lists the flagged runs, and summary.json's flagged_runs
// gives them to machines (a CI job can refuse a run folder from a loaded machine).
#pragma once

#include <string>
#include <vector>

#include "harness/results/record.h"

namespace speedbench::report {

// A coefficient of variation (over repetitions, or over one run's steps) above this is flagged.
inline constexpr double kNoisyCv = 0.10;
// Other processes' load (cores they kept busy while the run trained; in records of builds before
// 2026-12-06, over the 250 ms before it started), or the hypervisor's steal, above this is
// flagged.
inline constexpr double kBusyCoresOfOthers = 0.25;
// The run's threads that waited for a CPU, on average while it trained, above this is flagged (a
// quiet 2-core machine: about 0.01).
inline constexpr double kCpuWaitThreads = 0.25;

// One reason to distrust a run's numbers.
struct HealthFlag {
  std::string kind;  // what it is, the same for every run: "noisy steps", "waited for a CPU"
  std::string text;  // with the run's numbers: "step-time CV 16% > 10%"
};

// One ok run's flags, in the report's order; none for a run that is not ok.
std::vector<HealthFlag> run_health_flags(const Record& r);
// Their texts alone, as the report's table and a run's summary give them.
std::vector<std::string> run_health_flag_texts(const Record& r);

// "noisy steps: 9, waited for a CPU: 2": how many of `records`' runs have a flag of each kind,
// the kinds in the order they first appear; "" where no run has a flag.
std::string flag_counts_text(const std::vector<Record>& records);

}  // namespace speedbench::report
