// The technique registry: one entry per technique id of TIPS.md (17 tips plus channels_last,
// tf32, cuda_graphs, and host_memory_reuse from the tuning guide; amp_fp16 and
// loader_workers_pinned are a tip's switches compared apart), with its tip number, what it toggles,
// the published claim and its source, the devices where it means something, and how to tell from a
// TrainConfig whether it is on.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/config/train_config.h"

namespace speedbench {

struct TechniqueInfo {
  std::string id;                    // e.g. "amp"
  int tip = 0;                       // TIPS.md row number; 0 = beyond the list
  std::string toggles;               // what is toggled, off -> on
  std::string claim;                 // the published claim
  std::string source;                // where the claim comes from
  std::vector<std::string> devices;  // "cpu", "cuda"
  std::string config_field;          // the TrainConfig field(s) that hold it (JSON paths)
  bool implemented = false;          // false: enabling it is rejected at config load
  std::function<bool(const TrainConfig&)> is_on;
  bool acts_on_host_batches = false;  // nothing to act on when data.on_device keeps no host batch
};

const std::vector<TechniqueInfo>& technique_registry();
const TechniqueInfo* find_technique(const std::string& id);

// Ids of the techniques a config turns on.
std::vector<std::string> enabled_techniques(const TrainConfig& config);

// Why technique `info` cannot run in `config` ("" when it can): its device, or its data placement.
std::string not_applicable_reason(const TechniqueInfo& info, const TrainConfig& config);

// The first such reason among the techniques `config` turns on ("" when each of them can run).
std::string enabled_techniques_not_applicable_reason(const TrainConfig& config);

}  // namespace speedbench
