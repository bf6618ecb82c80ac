#include "harness/config/json_file_kind.h"

#include <initializer_list>
#include <optional>

#include "harness/config/config_error.h"

namespace speedbench {

namespace {

bool has_any_key(const nlohmann::json& json, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (json.contains(key)) return true;
  }
  return false;
}

std::optional<JsonFileKind> plain_json_file_kind(const nlohmann::json& json) {
  if (!json.is_object()) return std::nullopt;
  if (json.contains("workloads")) return JsonFileKind::kSuite;
  // A suite without its workloads is still a suite, only a broken one: its loader says why.
  const bool suite_like = has_any_key(
      json, {"design", "base", "variants", "sweep", "name", "description", "repetitions", "order"});
  if (suite_like) return std::nullopt;
  if (json.contains("claims")) return JsonFileKind::kClaims;
  if (has_any_key(json, {"model", "data", "optimizer", "techniques"})) {
    return JsonFileKind::kTrainConfig;
  }
  return std::nullopt;
}

const char* json_file_kind_name(JsonFileKind kind) {
  switch (kind) {
    case JsonFileKind::kSuite:
      return "a suite";
    case JsonFileKind::kClaims:
      return "a claims registry";
    case JsonFileKind::kTrainConfig:
      break;
  }
  return "a TrainConfig";
}

// How a file of this kind is told, and which command takes it.
std::string json_file_kind_use(JsonFileKind kind, const std::string& file) {
  switch (kind) {
    case JsonFileKind::kSuite:
      return "(it has \"workloads\"): run it with `speedbench run --suite " + file + "`";
    case JsonFileKind::kClaims:
      return "(it has \"claims\"): pass it to `speedbench verify RUN_FOLDER --claims " + file + "`";
    case JsonFileKind::kTrainConfig:
      break;
  }
  return "(it has no \"workloads\"): run it with `speedbench run-one --config " + file + "`";
}

}  // namespace

void check_json_file_kind(const nlohmann::json& json, JsonFileKind expected,
                          const std::string& file) {
  const auto kind = plain_json_file_kind(json);
  if (!kind || *kind == expected) return;
  throw ConfigError(file, "",
                    std::string("expected ") + json_file_kind_name(expected) + ", got " +
                        json_file_kind_name(*kind) + " " + json_file_kind_use(*kind, file));
}

}  // namespace speedbench
