// Strict reading of one JSON object: typed getters with defaults and range checks, and a
// final check that rejects keys nobody asked for (a typo must not silently become a default).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "harness/config/config_error.h"

namespace speedbench {

class JsonObjectReader {
 public:
  // `path` is the dotted location of `object` inside the file ("" for the root).
  JsonObjectReader(const nlohmann::json& object, std::string file, std::string path);

  bool get_bool(const std::string& key, bool fallback);
  int64_t get_int(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double get_double(const std::string& key, double fallback, double min, double max);
  std::string get_string(const std::string& key, const std::string& fallback);
  // A string that must be one of `choices`.
  std::string get_choice(const std::string& key, const std::string& fallback,
                         const std::vector<std::string>& choices);
  std::vector<int64_t> get_int_list(const std::string& key, const std::vector<int64_t>& fallback,
                                    int64_t min, int64_t max);
  // A nested object (an empty one when absent); its reader checks its own keys.
  JsonObjectReader child(const std::string& key);
  // The raw value, for callers that accept several shapes.
  const nlohmann::json* raw(const std::string& key);

  // Throws for any key that no getter asked for.
  void reject_unknown_keys() const;

  // Fails unless `value` (this entry's `key`) is not yet in `seen`; adds it.
  void require_unique(const std::string& key, const std::string& value,
                      std::set<std::string>& seen) const;

  [[noreturn]] void fail(const std::string& key, const std::string& message) const;
  std::string field_path(const std::string& key) const;
  const std::string& file() const { return file_; }

 private:
  const nlohmann::json* lookup(const std::string& key);

  const nlohmann::json& object_;
  std::string file_;
  std::string path_;
  std::set<std::string> consumed_;
};

// Parses JSON text; a syntax error names the file, line and column.
nlohmann::json parse_json_text(const std::string& text, const std::string& file);
// A whole file's text; an unreadable file is a ConfigError.
std::string read_text_file(const std::string& file);
// Reads and parses a JSON file; an unreadable file is a ConfigError.
nlohmann::json read_json_file(const std::string& file);

}  // namespace speedbench
