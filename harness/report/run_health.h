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

// One ok run's flags, each a short text ("step-time CV 16% > 10%"), in the report's order; none
// for a run that is not ok.
std::vector<std::string> run_health_flags(const Record& r);

}  // namespace speedbench::report
