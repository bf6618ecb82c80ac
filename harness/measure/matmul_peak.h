// The peak that model FLOP utilisation (MFU) divides by: the FLOP rate of a large square matrix
// product on the run's device, measured at start-up with the run's thread count and backend
// flags (with tf32 on, the fp32 product runs on TF32 tensor cores and its peak says so).
// Products of random n x n matrices (2n^3 FLOPs each), 2 untimed, then the fastest of 8.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace speedbench::measure {

struct MatmulPeak {
  int64_t size = 0;                           // n
  std::map<std::string, double> flops_per_s;  // "fp32", "bf16" (and "fp16" on CUDA)
};

// n = 8192 on CUDA (about 790 TFLOP/s bf16 on an H200), 512 on the CPU (a start-up cost of
// ~50 ms per run; a lower bound of the CPU's peak).
MatmulPeak measure_matmul_peak(bool on_cuda, int device_index);

// The peak a run's arithmetic is held to: bf16 or fp16 under that autocast, else fp32; 0 when
// that dtype was not measured.
double peak_for_amp(const MatmulPeak& peak, const std::string& amp);

}  // namespace speedbench::measure
