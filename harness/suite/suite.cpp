#include "harness/suite/suite.h"

#include <regex>

#include "harness/config/config_loader.h"
#include "harness/config/json_reader.h"

namespace speedbench {

Suite suite_from_json(const nlohmann::json& json, const std::string& file) {
  JsonObjectReader in(json, file, "");
  Suite suite;
  suite.file = file;
  suite.name = in.get_string("name", "");
  if (!std::regex_match(suite.name, std::regex("[A-Za-z0-9_.-]+"))) {
    in.fail("name", "got \"" + suite.name + "\", expected a non-empty name of letters, digits, '_', '-', '.'");
  }
  suite.description = in.get_string("description", "");
  const auto repetitions = in.get_int("repetitions", 1, 1, 1000);
  const auto* base = in.raw("base");
  nlohmann::json base_json = base ? *base : nlohmann::json::object();
  if (!base_json.is_object()) in.fail("base", "expected a JSON object of TrainConfig fields");
  const auto* runs = in.raw("runs");
  if (runs == nullptr || !runs->is_array() || runs->empty()) {
    in.fail("runs", "expected a non-empty list of {\"variant\": ..., \"config\": {...}}");
  }
  in.reject_unknown_keys();

  struct Variant {
    std::string name;
    nlohmann::json config_json;
    TrainConfig config;
  };
  std::vector<Variant> variants;
  for (size_t i = 0; i < runs->size(); ++i) {
    const auto path = "runs[" + std::to_string(i) + "]";
    JsonObjectReader run(runs->at(i), file, path);
    Variant variant;
    variant.name = run.get_string("variant", "");
    if (variant.name.empty()) run.fail("variant", "expected a non-empty variant name");
    for (const auto& other : variants) {
      if (other.name == variant.name) run.fail("variant", "\"" + variant.name + "\" is used twice");
    }
    const auto* overrides = run.raw("config");
    run.reject_unknown_keys();
    variant.config_json = base_json;
    if (overrides != nullptr) {
      if (!overrides->is_object()) run.fail("config", "expected a JSON object of TrainConfig fields");
      variant.config_json.merge_patch(*overrides);
    }
    try {
      variant.config = train_config_from_json(variant.config_json, file);
    } catch (const ConfigError& error) {
      // Name the run too: the bad value may come from `base` or from this run's overrides.
      throw ConfigError(file, path + " (variant " + variant.name + ") " + error.field(),
                        error.message());
    }
    variants.push_back(std::move(variant));
  }

  for (int64_t rep = 0; rep < repetitions; ++rep) {
    for (const auto& variant : variants) {
      PlannedRun run;
      run.index = static_cast<int64_t>(suite.plan.size());
      run.variant = variant.name;
      run.repetition = rep;
      run.config = variant.config;
      run.config.seed = variant.config.seed + rep;  // each repetition its own seed
      run.config_json = variant.config_json;
      run.config_json["seed"] = run.config.seed;
      suite.plan.push_back(std::move(run));
    }
  }
  return suite;
}

Suite load_suite(const std::string& path) { return suite_from_json(read_json_file(path), path); }

}  // namespace speedbench
