// Which of speedbench's JSON files a document is: a TrainConfig (`run-one --config`), a suite
// (`run --suite`) or a claims registry (`verify --claims`). A file handed to the wrong command
// is named as what it is, with the command that takes it, instead of failing on whichever of
// its fields the loader happens to meet first.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace speedbench {

enum class JsonFileKind { kTrainConfig, kSuite, kClaims };

// Throws a ConfigError naming `file` when `json` is plainly another kind than `expected`: a
// suite has "workloads", a claims registry "claims", a TrainConfig neither but one of its own
// sections. Anything less plain is left to the loader's field-by-field checks.
void check_json_file_kind(const nlohmann::json& json, JsonFileKind expected,
                          const std::string& file);

}  // namespace speedbench
