#include "harness/results/environment_identity.h"

namespace speedbench {

namespace {

// Top-level keys of the environment block (environment.cpp) that name the machine or the build.
// cpu_cores_usable: the same machine under taskset or a cgroup CPU quota runs as a smaller one.
const char* const kMachineIdentityKeys[] = {
    "host", "cpu_model", "cpu_cores", "cpu_cores_usable", "aten_cpu_capability", "cuda_available"};
const char* const kBuildIdentityKeys[] = {"libtorch_version", "build_type",
                                          "compiler",         "git_commit",
                                          "cudnn_version",    "cuda_runtime_version"};
// Facts of the build that are not identity (they follow from the keys above).
const char* const kOtherBuildKeys[] = {"speedbench_version", "cuda_compiled"};

// Objects whose every entry is identity: the instruction sets and the cache sizes.
const char* const kIdentityObjects[] = {"cpu_isa", "cpu_cache_bytes"};

// The GPU block's properties (cuda_environment.cpp); not its PCI slot, nor the clocks and
// temperature read when the record was written. The device and its driver:
const char* const kGpuMachineIdentityKeys[] = {
    "name",          "compute_capability", "memory_bytes",     "multiprocessors",
    "max_clock_khz", "memory_clock_khz",   "sm_clock_mhz_max", "power_limit_w",
    "driver",        "driver_api_version"};
// ... and the libraries the build links.
const char* const kGpuBuildKeys[] = {"runtime_version", "nccl_version"};

void add_entries(std::map<std::string, nlohmann::json>& identity, const nlohmann::json& block,
                 const std::string& block_name) {
  if (!block.is_object()) return;
  for (const auto& [key, value] : block.items()) identity[block_name + "." + key] = value;
}

// The `keys` that `block` has, into `identity` under `prefix` + key.
template <size_t N>
void add_keys(std::map<std::string, nlohmann::json>& identity, const nlohmann::json& block,
              const char* const (&keys)[N], const std::string& prefix = "") {
  for (const char* key : keys) {
    if (block.contains(key)) identity[prefix + key] = block[key];
  }
}

}  // namespace

std::map<std::string, nlohmann::json> environment_identity(const nlohmann::json& environment) {
  std::map<std::string, nlohmann::json> identity;
  if (!environment.is_object()) return identity;
  add_keys(identity, environment, kMachineIdentityKeys);
  add_keys(identity, environment, kBuildIdentityKeys);
  for (const char* key : kIdentityObjects) {
    if (environment.contains(key)) add_entries(identity, environment[key], key);
  }
  const auto gpu = environment.value("gpu", nlohmann::json::object());
  if (gpu.is_object()) {
    add_keys(identity, gpu, kGpuMachineIdentityKeys, "gpu.");
    add_keys(identity, gpu, kGpuBuildKeys, "gpu.");
  }
  return identity;
}

nlohmann::json with_build_of(const nlohmann::json& environment,
                             const nlohmann::json& build_source) {
  auto mixed = environment;
  if (!mixed.is_object()) return mixed;
  const auto take = [](nlohmann::json& block, const nlohmann::json& source, const char* key) {
    block.erase(key);
    if (source.is_object() && source.contains(key)) block[key] = source[key];
  };
  for (const char* key : kBuildIdentityKeys) take(mixed, build_source, key);
  for (const char* key : kOtherBuildKeys) take(mixed, build_source, key);
  if (mixed.contains("gpu") && mixed["gpu"].is_object()) {
    const auto source_gpu =
        build_source.is_object() ? build_source.value("gpu", nlohmann::json()) : nlohmann::json();
    for (const char* key : kGpuBuildKeys) take(mixed["gpu"], source_gpu, key);
  }
  return mixed;
}

std::vector<std::string> identity_changes(const nlohmann::json& then, const nlohmann::json& now,
                                          const std::vector<std::string>& run_keys) {
  auto before = environment_identity(then), after = environment_identity(now);
  for (const auto& key : run_keys) {
    if (then.contains(key)) before[key] = then[key];
    if (now.contains(key)) after[key] = now[key];
  }
  std::vector<std::string> changes;
  for (const auto& [key, value] : before) {
    const auto found = after.find(key);
    if (found == after.end() || found->second == value) continue;
    changes.push_back(key + ": " + value.dump() + " then, " + found->second.dump() + " now");
  }
  return changes;
}

IdentityValueCounts identity_value_counts(const std::vector<nlohmann::json>& environments) {
  IdentityValueCounts counts;
  for (const auto& environment : environments) {
    for (const auto& [key, value] : environment_identity(environment)) {
      counts[key][identity_value_text(value)] += 1;
    }
  }
  return counts;
}

std::vector<DifferingIdentityKey> differing_identity_keys(
    const std::vector<nlohmann::json>& environments) {
  std::vector<DifferingIdentityKey> differing;
  for (auto& [key, per_value] : identity_value_counts(environments)) {
    if (per_value.size() > 1) differing.push_back({key, std::move(per_value)});
  }
  return differing;
}

std::string key_names(const std::vector<DifferingIdentityKey>& differing) {
  std::string names;
  for (const auto& d : differing) names += (names.empty() ? "" : ", ") + d.key;
  return names;
}

std::string identity_value_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace speedbench
