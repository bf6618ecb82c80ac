#include "harness/measure/matmul_peak.h"

#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/mkldnn_linear.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/randn.h>
#include <torch/cuda.h>

#include <chrono>
#include <stdexcept>
#include <string>

namespace speedbench::measure {

namespace {

constexpr int kUntimed = 2;
constexpr int kTimed = 8;
constexpr const char* kKernelAtMm = "at::mm";
constexpr const char* kKernelOneDnn = "oneDNN";  // at::mkldnn_linear on oneDNN-layout tensors

// The fastest of kTimed runs of `product` (one n x n matrix product): noise (another process, a
// clock ramping up) only ever slows a product down, so the minimum time is the best estimate of a
// peak (the mean of a few short products varied by +-15% between runs on the CPU).
template <typename Product>
double product_rate(Product product, int64_t n, bool on_cuda, int device_index) {
  auto wait = [&] {
    if (on_cuda) torch::cuda::synchronize(device_index);
  };
  for (int i = 0; i < kUntimed; ++i) product();
  wait();
  double fastest_s = 0;
  for (int i = 0; i < kTimed; ++i) {
    const auto start = std::chrono::steady_clock::now();
    product();
    wait();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (i == 0 || seconds < fastest_s) fastest_s = seconds;
  }
  return fastest_s > 0 ? 2.0 * n * n * n / fastest_s : 0.0;
}

at::ScalarType matmul_scalar_type(const std::string& dtype, bool on_cuda) {
  if (dtype == "fp32") return at::kFloat;
  if (dtype == "bf16") return at::kBFloat16;
  if (dtype == "fp16" && on_cuda) return at::kHalf;
  throw std::invalid_argument("matmul peak: no " + dtype + " product on " +
                              (on_cuda ? "cuda" : "cpu") + " (expected fp32, bf16" +
                              (on_cuda ? ", fp16)" : ")"));
}

}  // namespace

std::pair<std::string, double> fastest_kernel(const std::map<std::string, double>& rates) {
  std::pair<std::string, double> fastest = {"", 0.0};
  for (const auto& [kernel, rate] : rates) {
    if (rate > fastest.second) fastest = {kernel, rate};
  }
  return fastest;
}

std::map<std::string, double> matmul_kernel_rates(bool on_cuda, int device_index,
                                                  const std::string& dtype, int64_t n) {
  const auto device = on_cuda ? at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(device_index))
                              : at::Device(at::kCPU);
  const auto options = at::TensorOptions().device(device).dtype(matmul_scalar_type(dtype, on_cuda));
  const auto a = at::randn({n, n}, options), b = at::randn({n, n}, options);
  std::map<std::string, double> rates;
  rates[kKernelAtMm] = product_rate([&] { at::mm(a, b); }, n, on_cuda, device_index);
  if (!on_cuda && at::hasMKLDNN()) {
    try {
      const auto a_onednn = a.to_mkldnn(), b_onednn = b.to_mkldnn();
      rates[kKernelOneDnn] =
          product_rate([&] { at::mkldnn_linear(a_onednn, b_onednn); }, n, on_cuda, device_index);
    } catch (const std::exception&) {  // a dtype oneDNN has no kernel for on this CPU
    }
  }
  return rates;
}

std::string matmul_dtype_for_amp(const std::string& amp) { return amp == "off" ? "fp32" : amp; }

MatmulPeak measure_matmul_peak(bool on_cuda, int device_index,
                               const std::vector<std::string>& dtypes) {
  MatmulPeak peak;
  peak.size = on_cuda ? 8192 : 512;
  for (const auto& name : dtypes) {
    const auto fastest =
        fastest_kernel(matmul_kernel_rates(on_cuda, device_index, name, peak.size));
    peak.kernel[name] = fastest.first;
    peak.flops_per_s[name] = fastest.second;
  }
  return peak;
}

MatmulPeak faster_peak(const MatmulPeak& a, const MatmulPeak& b) {
  if (a.size != b.size) {
    throw std::invalid_argument("matmul peak: products of " + std::to_string(a.size) + " and " +
                                std::to_string(b.size) + " do not compare");
  }
  MatmulPeak faster = a;
  for (const auto& [dtype, rate] : b.flops_per_s) {
    const auto known = faster.flops_per_s.find(dtype);
    if (known != faster.flops_per_s.end() && known->second >= rate) continue;
    faster.flops_per_s[dtype] = rate;
    const auto kernel = b.kernel.find(dtype);
    if (kernel != b.kernel.end()) {
      faster.kernel[dtype] = kernel->second;
    } else {
      faster.kernel.erase(dtype);
    }
  }
  return faster;
}

double peak_for_amp(const MatmulPeak& peak, const std::string& amp) {
  const auto found = peak.flops_per_s.find(matmul_dtype_for_amp(amp));
  return found == peak.flops_per_s.end() ? 0.0 : found->second;
}

double model_flop_utilisation(double model_flops_per_s, double peak_flops_per_s) {
  if (peak_flops_per_s <= 0) return 0.0;
  const double utilisation = model_flops_per_s / peak_flops_per_s;
  return utilisation <= 1.0 ? utilisation : 0.0;
}

}  // namespace speedbench::measure
