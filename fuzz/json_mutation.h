// A structure-aware mutation for the fuzz targets whose inputs are JSON (configs, suites,
// records, plans): byte flips seldom keep JSON valid, so the loaders' checks past the parser are
// reached by changing one value of a valid document to another type or an edge value instead.
#pragma once

#include <nlohmann/json.hpp>

#include <iterator>
#include <optional>
#include <random>
#include <string>

namespace speedbench::fuzz {

// Values of other types and at the edges of their ranges: numbers (negative, zero, fractional,
// the edges of double and int64), strings, the other scalars, containers.
inline nlohmann::json replacement(std::mt19937_64& rng) {
  static const auto kValues = nlohmann::json::parse(R"([
      -1, 0, 1, 2, -1.5, 1e308, -1e308, 5e-324, 9223372036854775807,
      "", "x", "baseline", true, false, null, [], {}, [1, 2]])");
  return kValues[rng() % kValues.size()];
}

// Replaces (or, one time in eight, removes) one randomly chosen value inside `json`.
inline void mutate_one_value(nlohmann::json& json, std::mt19937_64& rng) {
  nlohmann::json* node = &json;
  nlohmann::json* parent = nullptr;
  std::string key;
  size_t index = 0;
  // Walk down a random path; stop at a leaf or, now and then, at an inner node.
  while ((node->is_object() || node->is_array()) && !node->empty() && rng() % 4 != 0) {
    parent = node;
    if (node->is_object()) {
      auto it = node->begin();
      std::advance(it, static_cast<long>(rng() % node->size()));
      key = it.key();
      node = &it.value();
    } else {
      index = rng() % node->size();
      node = &(*node)[index];
    }
  }
  if (parent != nullptr && rng() % 8 == 0) {
    if (parent->is_object()) {
      parent->erase(key);
    } else {
      parent->erase(index);
    }
    return;
  }
  *node = replacement(rng);
}

// `text` with one value changed, or nothing where it is not JSON (the caller falls back to
// libFuzzer's byte mutations).
inline std::optional<std::string> mutate_json_text(const std::string& text, std::mt19937_64& rng) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded()) return std::nullopt;
  mutate_one_value(json, rng);
  return json.dump();
}

}  // namespace speedbench::fuzz
