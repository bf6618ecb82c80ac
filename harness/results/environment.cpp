#include "harness/results/environment.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/cpu/Utils.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <sys/utsname.h>
#include <torch/version.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

#include "harness/measure/usable_cpu_cores.h"
#include "harness/results/build_commit.h"

namespace speedbench {

namespace {

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

// What cpuinfo (through ATen) finds the CPU to support, as {"avx512_bf16": true, "amx_bf16":
// false, ...}, and its cache sizes: a VM's model name ("Intel(R) Xeon(R) Processor") does not
// say whether bf16 runs on AMX tiles, on AVX-512 or emulated, which decides CPU autocast's speed.
void add_cpu_capabilities(nlohmann::json& env) {
  nlohmann::json isa = nlohmann::json::object(), caches = nlohmann::json::object();
  for (const auto& [name, value] : at::cpu::get_cpu_capabilities()) {
    if (value.isBool()) isa[name] = value.toBool();
    const auto cache = name.find("_cache_size");
    if (value.isInt() && cache != std::string::npos) caches[name.substr(0, cache)] = value.toInt();
  }
  env["cpu_isa"] = isa;
  env["cpu_cache_bytes"] = caches;
  env["aten_cpu_capability"] = at::get_cpu_capability();  // the kernels ATen dispatches to
}

}  // namespace

std::string version_line() {
  return std::string("speedbench ") + SPEEDBENCH_VERSION + " (commit " + build_git_commit() + ", " +
         SPEEDBENCH_BUILD_TYPE + " build, LibTorch " + TORCH_VERSION + ", CUDA code " +
         (SPEEDBENCH_WITH_CUDA ? "on" : "off") + ")";
}

nlohmann::json collect_environment() {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  utsname os{};
  uname(&os);
  const auto& cuda = at::detail::getCUDAHooks();
  const bool has_gpu = cuda.hasCUDA() && cuda.getNumGPUs() > 0;
  nlohmann::json env = {
      {"host", host},
      {"cpu_model", cpu_model()},
      {"cpu_cores", std::thread::hardware_concurrency()},
      // Fewer than cpu_cores under taskset, a CPU set or a cgroup quota (docker --cpus).
      {"cpu_cores_usable", measure::usable_cpu_cores()},
      // The CPUs other_processes_busy_cores counts: more than cpu_cores_usable under a cgroup
      // quota, whose other cores others may keep busy without taking anything from the run.
      {"cpu_cores_affinity", measure::affinity_cpus().size()},
      {"torch_threads", at::get_num_threads()},
      {"torch_interop_threads", at::get_num_interop_threads()},
      {"os", std::string(os.sysname) + " " + os.release + " " + os.machine},
      {"compiler", std::string("g++ ") + __VERSION__},
      {"build_type", SPEEDBENCH_BUILD_TYPE},
      {"speedbench_version", SPEEDBENCH_VERSION},
      {"libtorch_version", TORCH_VERSION},
      {"cuda_compiled", static_cast<bool>(SPEEDBENCH_WITH_CUDA)},
      {"cuda_available", has_gpu},
      {"gpu_count", has_gpu ? cuda.getNumGPUs() : 0},
      {"git_commit", build_git_commit()},
  };
  add_cpu_capabilities(env);
  if (has_gpu) {
    env["cudnn_version"] = cuda.hasCuDNN() ? cuda.versionCuDNN() : 0;
    env["cuda_runtime_version"] = cuda.versionCUDART();
    env["gpu"] = collect_cuda_environment();
  }
  return env;
}

#if !SPEEDBENCH_WITH_CUDA
nlohmann::json collect_cuda_environment() { return nlohmann::json::object(); }
#endif

}  // namespace speedbench
