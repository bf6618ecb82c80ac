// The fields where two configs (as JSON) differ: what `compare` lists for a variant whose config
// changed between two run folders, and what `run --suite S --plan` shows a variant switching
// against its baseline. Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace speedbench {

struct ConfigFieldChange {
  std::string field;      // dotted path: "techniques.amp", "model.widths" (an array is one field)
  nlohmann::json before;  // null where `before` lacks the field
  nlohmann::json after;   // null where `after` lacks it
};

// Every field whose value differs, in field order; objects are compared key by key, anything
// else (arrays included) whole.
std::vector<ConfigFieldChange> config_field_changes(const nlohmann::json& before,
                                                    const nlohmann::json& after);

// `"off" -> "bf16"`: a change's values as JSON, for a line of text.
std::string change_text(const ConfigFieldChange& change);

}  // namespace speedbench
