// GPU details for the environment block. CUDA-only: compiled in CUDA builds only.
#include <cuda_runtime_api.h>

#include "harness/results/environment.h"

namespace speedbench {

nlohmann::json collect_cuda_environment() {
  int device = 0, driver = 0, runtime = 0;
  cudaGetDevice(&device);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess) return {{"error", "no properties"}};
  int clock_khz = 0, memory_clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device);
  return {
      {"name", properties.name},
      {"compute_capability", std::to_string(properties.major) + "." + std::to_string(properties.minor)},
      {"memory_bytes", properties.totalGlobalMem},
      {"multiprocessors", properties.multiProcessorCount},
      {"max_clock_khz", clock_khz},
      {"memory_clock_khz", memory_clock_khz},
      {"driver_version", driver},
      {"runtime_version", runtime},
  };
}

}  // namespace speedbench
