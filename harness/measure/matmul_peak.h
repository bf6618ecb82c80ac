// The peak that model FLOP utilisation (MFU) divides by: the FLOP rate of a large square matrix
// product on the run's device, measured with the run's thread count and backend flags (with tf32
// on, the fp32 product runs on TF32 tensor cores and its peak says so) at the run's start and
// again at its end; the faster counts (faster_peak).
// Products of random n x n matrices (2n^3 FLOPs each), 2 untimed, then the fastest of 8, for each
// kernel the device has for the dtype (the CPU has two: at::mm and oneDNN's); the peak is the
// fastest kernel's.
// A run measures only the dtype its arithmetic uses: on a CPU without native bf16 a 512 x 512
// bf16 product takes ~0.17 s, so timing it in every fp32 run cost ~1.7 s of start-up per run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace speedbench::measure {

struct MatmulPeak {
  int64_t size = 0;                           // n
  std::map<std::string, double> flops_per_s;  // per dtype measured: "fp32", "bf16", "fp16"
  std::map<std::string, std::string> kernel;  // per dtype: the kernel of that rate ("at::mm"...)
};

// The FLOP/s of each n x n matrix-product kernel the device has for `dtype`, by name. On CUDA
// "at::mm" (cuBLAS). On the CPU also "oneDNN" (at::mkldnn_linear), the library the models'
// convolutions and LSTMs run on, where it has a kernel for the dtype: on an AMD EPYC with AVX-512
// at::mm hands fp32 to MKL, whose sgemm ran at 195 GFLOP/s and oneDNN's at 431 (n = 512, 2
// cores), while that CPU's fp32 LSTM steps reached 250.
std::map<std::string, double> matmul_kernel_rates(bool on_cuda, int device_index,
                                                  const std::string& dtype, int64_t n);

// The kernel with the highest rate of `rates` (kernel -> FLOP/s) and that rate; {"", 0} if none.
std::pair<std::string, double> fastest_kernel(const std::map<std::string, double>& rates);

// The dtype of a run's matrix products: "fp32" with amp "off", else the autocast dtype.
std::string matmul_dtype_for_amp(const std::string& amp);

// One probe. n = 8192 on CUDA (about 790 TFLOP/s bf16 on an H200), 512 on the CPU (a lower bound
// of the CPU's peak; ~30 ms for fp32 on 2 cores). dtypes: "fp32", "bf16", "fp16" (CUDA only; CPU
// autocast has no fp16); another name throws std::invalid_argument.
MatmulPeak measure_matmul_peak(bool on_cuda, int device_index,
                               const std::vector<std::string>& dtypes);

// Per dtype, the faster of two measurements of the same products and that one's kernel. A
// transient holds back a probe of milliseconds: in the CPU references of 2026-11-30 to 12-07, 26
// of 1,386 ok runs timed their start's fp32 peak below 0.6x their folder's median, most at about
// half (one of 2 cores missing), 15 of them while training within 10% of their variant's median
// speed; their MFU read about twice the others' (19) or, above 1, none (7). A second probe, at
// the end of the run, is rarely caught by the same transient. Throws std::invalid_argument if the
// sizes differ.
MatmulPeak faster_peak(const MatmulPeak& a, const MatmulPeak& b);

// The peak a run's arithmetic is held to: bf16 or fp16 under that autocast, else fp32; 0 when
// that dtype was not measured.
double peak_for_amp(const MatmulPeak& peak, const std::string& amp);

// Model FLOP utilisation: model FLOP/s per device / peak FLOP/s, or 0 (none) when there is no
// peak or the ratio is above 1. Above 1 the timed product was not the device's fastest path for
// that dtype: a CPU without native bf16 (AMD EPYC, no AVX-512) ran a bf16 at::mm at ~1.5 GFLOP/s
// while its bf16 ResNet-8 steps reached 3.7x that. No MFU rather than an impossible one.
double model_flop_utilisation(double model_flops_per_s, double peak_flops_per_s);

}  // namespace speedbench::measure
