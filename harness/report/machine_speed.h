// How fast each folder's machine was, as its own runs measured it. Every run times a large
// matrix product with LibTorch's kernels at start-up (matmul_peak.h) before it trains: another
// machine moves that peak, the build's own code does not, unless the build changes how LibTorch
// runs (an ASan build's runs timed it at 0.63x of the release build's: results/reference/
// against-asan). `compare` sets the two folders' fp32 peaks side by side, so that a reader can
// tell the machine from the build: variants that moved by about what the peak moved were moved
// by the machine (another host, its clocks, a noisy neighbour); a peak that held while they
// moved points at the build. Torch-free.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "harness/report/comparisons.h"

namespace speedbench::report {

// The fp32 peaks (FLOP/s) that a folder's ok runs without TF32 timed at their start (a run with
// TF32 on times its fp32 product on TF32 tensor cores), and the n of their n x n products.
struct FolderPeaks {
  std::vector<double> flops_per_s;
  std::set<int64_t> sizes;
};
FolderPeaks fp32_matmul_peaks(const Results& results);

struct MachineSpeedChange {
  int64_t matrix_size = 0;  // n of the n x n products; 0 when the folders' products differ
  // fp32_matmul_peaks of each folder: baseline = BEFORE's runs, variant = AFTER's.
  MetricComparison peak;
  std::string reason;  // why it is not compared ("" when peak.defined)
};

MachineSpeedChange compare_machine_speed(const Results& before, const Results& after);

}  // namespace speedbench::report
