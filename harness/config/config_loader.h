// TrainConfig <-> JSON. Loading validates every field (type, range, allowed values, known keys)
// and the combinations between fields; errors name the file and the field path.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "harness/config/train_config.h"

namespace speedbench {

// `file` is only used in error messages.
TrainConfig train_config_from_json(const nlohmann::json& json, const std::string& file);
TrainConfig load_train_config(const std::string& path);

// The full resolved config: every field, defaults included (what a record embeds).
nlohmann::json train_config_to_json(const TrainConfig& config);

// "<dataset>/<arch>" unless the config names its workload.
std::string workload_name(const TrainConfig& config);

}  // namespace speedbench
