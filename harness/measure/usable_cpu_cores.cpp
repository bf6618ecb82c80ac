#include "harness/measure/usable_cpu_cores.h"

#include <sched.h>

#include <algorithm>
#include <sstream>
#include <thread>
#include <vector>

#include "harness/measure/cgroup_files.h"

namespace speedbench::measure {

namespace {

std::optional<int64_t> quota_cores(long long quota, long long period) {
  if (quota <= 0 || period <= 0) return std::nullopt;
  return (quota + period - 1) / period;
}

// Whole numbers only: "max", "", "12abc" are not one.
std::optional<long long> whole_number(const std::string& text) {
  std::istringstream in(text);
  long long value = 0;
  std::string rest;
  if (!(in >> value) || (in >> rest)) return std::nullopt;
  return value;
}

std::optional<int64_t> tighter(std::optional<int64_t> a, std::optional<int64_t> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

}  // namespace

std::optional<int64_t> cgroup_v2_quota_cores(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota, period, rest;
  if (!(in >> quota >> period) || (in >> rest)) return std::nullopt;
  const auto quota_us = whole_number(quota), period_us = whole_number(period);
  if (!quota_us || !period_us) return std::nullopt;  // "max": no quota
  return quota_cores(*quota_us, *period_us);
}

std::optional<int64_t> cgroup_v1_quota_cores(const std::string& quota_us,
                                             const std::string& period_us) {
  const auto quota = whole_number(quota_us), period = whole_number(period_us);
  if (!quota || !period) return std::nullopt;
  return quota_cores(*quota, *period);
}

std::optional<int64_t> cgroup_tree_quota_cores(const std::string& v2_mount,
                                               const std::string& v2_path,
                                               const std::string& v1_mount,
                                               const std::string& v1_path) {
  std::optional<int64_t> cores;
  for (const auto& path : path_and_parents(v2_path))
    cores = tighter(cores, cgroup_v2_quota_cores(file_text(v2_mount + path + "/cpu.max")));
  for (const auto& path : path_and_parents(v1_path)) {
    const auto folder = v1_mount + path + "/";
    cores = tighter(cores, cgroup_v1_quota_cores(file_text(folder + "cpu.cfs_quota_us"),
                                                 file_text(folder + "cpu.cfs_period_us")));
  }
  return cores;
}

std::vector<int> affinity_cpus() {
  cpu_set_t affinity;
  CPU_ZERO(&affinity);
  if (sched_getaffinity(0, sizeof affinity, &affinity) != 0) return {};
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &affinity)) cpus.push_back(cpu);
  }
  return cpus;
}

int64_t usable_cpu_cores() {
  int64_t cores = std::thread::hardware_concurrency();
  const auto allowed = static_cast<int64_t>(affinity_cpus().size());
  if (allowed > 0) cores = cores > 0 ? std::min(cores, allowed) : allowed;
  const auto quota = cgroup_tree_quota_cores(kCgroupV2Mount, own_cgroup_path(""), kCgroupV1CpuMount,
                                             own_cgroup_path("cpu"));
  if (quota && cores > 0) cores = std::min(cores, *quota);
  return cores;
}

}  // namespace speedbench::measure
