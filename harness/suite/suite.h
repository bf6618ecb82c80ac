// A suite: named runs of one base config with per-run overrides, repeated and interleaved.
// Minimal format (deepened by the suites issue):
//   {"name": "smoke", "description": "...", "repetitions": 1,
//    "base": {TrainConfig fields},
//    "runs": [{"variant": "resnet8", "config": {fields merged over base (JSON merge patch)}}]}
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/config/train_config.h"

namespace speedbench {

struct PlannedRun {
  int64_t index = 0;        // position in the plan
  std::string variant;
  int64_t repetition = 0;
  nlohmann::json config_json;  // the resolved config (base + overrides)
  TrainConfig config;
};

struct Suite {
  std::string name;
  std::string description;
  std::string file;
  std::vector<PlannedRun> plan;  // repetitions interleaved: A B C A B C ...
};

// Loads and validates a suite: every run's resolved config is checked before anything runs.
Suite load_suite(const std::string& path);
Suite suite_from_json(const nlohmann::json& json, const std::string& file);

}  // namespace speedbench
