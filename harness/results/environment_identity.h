// Which machine and which build measured a record: the part of its environment block that the
// numbers depend on (host, CPU model, instruction sets and caches, cores and those the run may
// use, GPU model, driver and limits, LibTorch, build type, commit), without the readings that
// change from run to run on the same machine (load at start, clocks and temperature now) or with
// the run's config (threads).
// `reproduce` warns when a rerun's identity differs from its record's; the report flags a run
// folder whose records come from more than one identity (a --resume on another machine or after
// a rebuild), since its ratios would then compare machines or builds, not techniques. Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace speedbench {

// The identity of one environment block, flattened one level: "host", "git_commit",
// "cpu_isa.amx_bf16", "gpu.name", ... -> value. Keys the block lacks are left out.
std::map<std::string, nlohmann::json> environment_identity(const nlohmann::json& environment);

// `environment` with the build's keys (LibTorch, build type, compiler, commit, the CUDA, cuDNN and
// NCCL libraries) taken from `build_source`, those it lacks left out. For a record that the
// runner writes for another build (run --against) whose run died before writing its own: the
// machine as read now, the build as that binary's own newest record states it, or no build at
// all when it has written none.
nlohmann::json with_build_of(const nlohmann::json& environment, const nlohmann::json& build_source);

// The key such a record adds to its environment block: that binary's --version line. Its block
// describes no measurement (the run died first), so a folder's identity counts leave it out.
inline constexpr const char* kForAnotherBuildKey = "build_version_line";
inline bool written_for_another_build(const nlohmann::json& environment) {
  return environment.is_object() && environment.contains(kForAnotherBuildKey);
}

// "key: A then, B now" (values as JSON) for each identity key that both blocks have and that
// differs, and for each of `run_keys`, top-level keys that describe the run rather than the
// machine (reproduce passes "torch_threads"). A key only one block has (a record written before
// the key existed) is not a difference.
std::vector<std::string> identity_changes(const nlohmann::json& then, const nlohmann::json& now,
                                          const std::vector<std::string>& run_keys = {});

// Each identity key of these environments -> its values (as text) -> how many environments have
// that value.
using IdentityValueCounts = std::map<std::string, std::map<std::string, int>>;
IdentityValueCounts identity_value_counts(const std::vector<nlohmann::json>& environments);

// An identity key whose value is not the same in every environment that has it.
struct DifferingIdentityKey {
  std::string key;                             // "git_commit"
  std::map<std::string, int> count_per_value;  // value (as text) -> how many environments
};

// The identity keys on which these environments differ, in key order; empty when they agree.
std::vector<DifferingIdentityKey> differing_identity_keys(
    const std::vector<nlohmann::json>& environments);

// "git_commit, host": the differing keys' names, for a sentence.
std::string key_names(const std::vector<DifferingIdentityKey>& differing);

// A value as a table shows it: strings bare, anything else as JSON.
std::string identity_value_text(const nlohmann::json& value);

}  // namespace speedbench
