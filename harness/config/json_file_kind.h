// Which of speedbench's JSON files a document is: a TrainConfig (`run-one --config`), a suite
// (`run --suite`), a claims registry (`verify --claims`) or records (a runs.jsonl, one JSON
// record a line: `report`, `compare`, `reproduce`). A file handed to the wrong command is named
// as what it is, with the command that takes it, instead of failing on whichever of its fields
// (or, for records, its line 2) the loader happens to meet first.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace speedbench {

enum class JsonFileKind { kTrainConfig, kSuite, kClaims, kRecords };

// Throws a ConfigError naming `file` when its `text` is plainly another kind than `expected`:
// records have a "schema_version" (on their first line), a suite has "workloads", a claims
// registry "claims", a TrainConfig none of these but one of its own sections. Anything less
// plain (text that is not JSON at all, too) is left to the loader's own checks.
void check_json_file_kind(const std::string& text, JsonFileKind expected, const std::string& file);

// Parses `text` once, and throws check_json_file_kind's error where it is another kind, else the
// parse error (line and column) where it is no JSON.
nlohmann::json parse_json_text_of_kind(const std::string& text, JsonFileKind expected,
                                       const std::string& file);
// parse_json_text_of_kind of the file's text.
nlohmann::json read_json_file_of_kind(const std::string& file, JsonFileKind expected);

}  // namespace speedbench
