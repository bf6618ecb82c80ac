#include "harness/config/json_file_kind.h"

#include <initializer_list>
#include <optional>

#include "harness/config/config_error.h"
#include "harness/config/json_reader.h"

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
  if (json.contains("schema_version")) return JsonFileKind::kRecords;
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

// The kind of `text` parsed as `json`; where it is no one JSON document (`json` discarded), of its
// first line, as JSON Lines are read.
std::optional<JsonFileKind> plain_text_kind(const std::string& text, const nlohmann::json& json) {
  if (!json.is_discarded()) return plain_json_file_kind(json);
  const auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return std::nullopt;
  const auto first_line = text.substr(start, text.find('\n', start) - start);
  const auto line = nlohmann::json::parse(first_line, nullptr, /*allow_exceptions=*/false);
  if (!line.is_discarded() && plain_json_file_kind(line) == JsonFileKind::kRecords) {
    return JsonFileKind::kRecords;
  }
  return std::nullopt;
}

const char* json_file_kind_name(JsonFileKind kind) {
  switch (kind) {
    case JsonFileKind::kSuite:
      return "a suite";
    case JsonFileKind::kClaims:
      return "a claims registry";
    case JsonFileKind::kRecords:
      return "records (a runs.jsonl)";
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
    case JsonFileKind::kRecords:
      return "(it has \"schema_version\"): report them with `speedbench report " + file +
             "`, or rerun one with `speedbench reproduce " + file + "`";
    case JsonFileKind::kTrainConfig:
      break;
  }
  return "(it has no \"workloads\"): run it with `speedbench run-one --config " + file + "`";
}

void throw_if_another_kind(std::optional<JsonFileKind> kind, JsonFileKind expected,
                           const std::string& file) {
  if (!kind || *kind == expected) return;
  throw ConfigError(file, "",
                    std::string("expected ") + json_file_kind_name(expected) + ", got " +
                        json_file_kind_name(*kind) + " " + json_file_kind_use(*kind, file));
}

}  // namespace

void check_json_file_kind(const std::string& text, JsonFileKind expected, const std::string& file) {
  throw_if_another_kind(
      plain_text_kind(text, nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false)),
      expected, file);
}

nlohmann::json parse_json_text_of_kind(const std::string& text, JsonFileKind expected,
                                       const std::string& file) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  throw_if_another_kind(plain_text_kind(text, json), expected, file);
  // Not JSON: parse_json_text throws the error that names its line and column.
  return json.is_discarded() ? parse_json_text(text, file) : json;
}

nlohmann::json read_json_file_of_kind(const std::string& file, JsonFileKind expected) {
  return parse_json_text_of_kind(read_text_file(file), expected, file);
}

}  // namespace speedbench
