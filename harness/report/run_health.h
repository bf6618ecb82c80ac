// What makes one run's numbers less trustworthy: noisy steps, other load when it started, more
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
// Other processes' load (cores busy over the 250 ms before the run) above this is flagged.
inline constexpr double kBusyCoresAtStart = 0.25;

// One ok run's flags, each a short text ("step-time CV 16% > 10%"), in the report's order; none
// for a run that is not ok.
std::vector<std::string> run_health_flags(const Record& r);

}  // namespace speedbench::report
