// GPU details for the environment block: the device's properties from the CUDA runtime, the NCCL
// version LibTorch was linked with, and from NVML (the driver's management library) the driver's
// release, the clocks when the record is written, temperature and power limit. CUDA builds only.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <torch/csrc/cuda/nccl.h>

#include <string>

#include "harness/results/environment.h"

namespace speedbench {

namespace {

std::string nccl_version() {
  const auto v = torch::cuda::nccl::version();  // major * 10000 + minor * 100 + patch
  return std::to_string(v / 10000) + "." + std::to_string(v % 10000 / 100) + "." +
         std::to_string(v % 100);
}

// NVML, opened at run time: the build needs neither its header nor its library, and a machine
// without it still gets the rest. The few declarations below are NVML's stable C interface.
nlohmann::json nvml_facts(const std::string& pci_bus_id) {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return {{"nvml", std::string("not available: ") + dlerror()}};
  using Status = int;  // nvmlReturn_t; 0 = success
  using Device = void*;
  auto symbol = [&](const char* name) { return dlsym(library, name); };
  auto init = reinterpret_cast<Status (*)()>(symbol("nvmlInit_v2"));
  auto shutdown = reinterpret_cast<Status (*)()>(symbol("nvmlShutdown"));
  auto driver_version =
      reinterpret_cast<Status (*)(char*, unsigned)>(symbol("nvmlSystemGetDriverVersion"));
  auto by_pci = reinterpret_cast<Status (*)(const char*, Device*)>(
      symbol("nvmlDeviceGetHandleByPciBusId_v2"));
  auto clock =
      reinterpret_cast<Status (*)(Device, int, unsigned*)>(symbol("nvmlDeviceGetClockInfo"));
  auto max_clock =
      reinterpret_cast<Status (*)(Device, int, unsigned*)>(symbol("nvmlDeviceGetMaxClockInfo"));
  auto temperature =
      reinterpret_cast<Status (*)(Device, int, unsigned*)>(symbol("nvmlDeviceGetTemperature"));
  auto power_limit =
      reinterpret_cast<Status (*)(Device, unsigned*)>(symbol("nvmlDeviceGetPowerManagementLimit"));
  nlohmann::json facts;
  Device device = nullptr;
  if (!init || !shutdown || !driver_version || !by_pci || !clock || !max_clock || !temperature ||
      !power_limit) {
    facts["nvml"] = "a symbol is missing";
  } else if (init() != 0) {
    facts["nvml"] = "nvmlInit failed";
  } else {
    char driver[96] = {};
    if (driver_version(driver, sizeof driver) == 0) facts["driver"] = driver;
    if (by_pci(pci_bus_id.c_str(), &device) != 0) {
      facts["nvml"] = "no NVML device for PCI bus id " + pci_bus_id;
    } else {
      constexpr int kSmClock = 1, kMemoryClock = 2, kGpuTemperature = 0;
      unsigned value = 0;
      if (clock(device, kSmClock, &value) == 0) facts["sm_clock_mhz_now"] = value;
      if (max_clock(device, kSmClock, &value) == 0) facts["sm_clock_mhz_max"] = value;
      if (clock(device, kMemoryClock, &value) == 0) facts["memory_clock_mhz_now"] = value;
      if (temperature(device, kGpuTemperature, &value) == 0) facts["temperature_c"] = value;
      if (power_limit(device, &value) == 0) facts["power_limit_w"] = value / 1000.0;
    }
    shutdown();
  }
  dlclose(library);
  return facts;
}

}  // namespace

nlohmann::json collect_cuda_environment() {
  int device = 0, driver = 0, runtime = 0;
  cudaGetDevice(&device);
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  cudaDeviceProp properties{};
  if (cudaGetDeviceProperties(&properties, device) != cudaSuccess)
    return {{"error", "no properties"}};
  int clock_khz = 0, memory_clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device);
  char pci_bus_id[32] = {};
  cudaDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, device);
  nlohmann::json gpu = {
      {"name", properties.name},
      {"compute_capability",
       std::to_string(properties.major) + "." + std::to_string(properties.minor)},
      {"memory_bytes", properties.totalGlobalMem},
      {"multiprocessors", properties.multiProcessorCount},
      {"max_clock_khz", clock_khz},
      {"memory_clock_khz", memory_clock_khz},
      {"driver_api_version", driver},
      {"runtime_version", runtime},
      {"pci_bus_id", pci_bus_id},
      {"nccl_version", nccl_version()},
  };
  gpu.update(nvml_facts(pci_bus_id));
  return gpu;
}

}  // namespace speedbench
