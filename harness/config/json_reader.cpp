#include "harness/config/json_reader.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace speedbench {

namespace {
std::string show(const nlohmann::json& value) {
  auto text = value.dump();
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}
}  // namespace

JsonObjectReader::JsonObjectReader(const nlohmann::json& object, std::string file, std::string path)
    : object_(object), file_(std::move(file)), path_(std::move(path)) {
  if (!object_.is_object()) {
    throw ConfigError(file_, path_, "got " + show(object_) + ", expected a JSON object");
  }
}

std::string JsonObjectReader::field_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void JsonObjectReader::require_unique(const std::string& key, const std::string& value,
                                      std::set<std::string>& seen) const {
  if (!seen.insert(value).second) fail(key, "\"" + value + "\" is used twice");
}

void JsonObjectReader::fail(const std::string& key, const std::string& message) const {
  throw ConfigError(file_, field_path(key), message);
}

const nlohmann::json* JsonObjectReader::lookup(const std::string& key) {
  consumed_.insert(key);
  auto it = object_.find(key);
  if (it == object_.end() || it->is_null()) return nullptr;
  return &*it;
}

const nlohmann::json* JsonObjectReader::raw(const std::string& key) { return lookup(key); }

bool JsonObjectReader::get_bool(const std::string& key, bool fallback) {
  const auto* value = lookup(key);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) fail(key, "got " + show(*value) + ", expected true or false");
  return value->get<bool>();
}

int64_t JsonObjectReader::get_int(const std::string& key, int64_t fallback, int64_t min,
                                  int64_t max) {
  const auto* value = lookup(key);
  if (value == nullptr) return fallback;
  if (!value->is_number_integer()) {
    fail(key, "got " + show(*value) + ", expected an integer in [" + std::to_string(min) + ", " +
                  std::to_string(max) + "]");
  }
  const auto number = value->get<int64_t>();
  if (number < min || number > max) {
    fail(key, "got " + std::to_string(number) + ", expected an integer in [" + std::to_string(min) +
                  ", " + std::to_string(max) + "]");
  }
  return number;
}

double JsonObjectReader::get_double(const std::string& key, double fallback, double min,
                                    double max) {
  const auto* value = lookup(key);
  if (value == nullptr) return fallback;
  std::ostringstream range;
  range << "a number in [" << min << ", " << max << "]";
  if (!value->is_number()) fail(key, "got " + show(*value) + ", expected " + range.str());
  const auto number = value->get<double>();
  if (!std::isfinite(number) || number < min || number > max) {
    fail(key, "got " + show(*value) + ", expected " + range.str());
  }
  return number;
}

std::string JsonObjectReader::get_string(const std::string& key, const std::string& fallback) {
  const auto* value = lookup(key);
  if (value == nullptr) return fallback;
  if (!value->is_string()) fail(key, "got " + show(*value) + ", expected a string");
  return value->get<std::string>();
}

std::string JsonObjectReader::get_choice(const std::string& key, const std::string& fallback,
                                         const std::vector<std::string>& choices) {
  const auto value = get_string(key, fallback);
  for (const auto& choice : choices) {
    if (value == choice) return value;
  }
  std::string expected;
  for (const auto& choice : choices) expected += (expected.empty() ? "" : ", ") + choice;
  fail(key, "got \"" + value + "\", expected one of: " + expected);
}

std::vector<int64_t> JsonObjectReader::get_int_list(const std::string& key,
                                                    const std::vector<int64_t>& fallback,
                                                    int64_t min, int64_t max) {
  const auto* value = lookup(key);
  if (value == nullptr) return fallback;
  const auto expected =
      "a non-empty list of integers in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (!value->is_array() || value->empty())
    fail(key, "got " + show(*value) + ", expected " + expected);
  std::vector<int64_t> numbers;
  for (const auto& item : *value) {
    if (!item.is_number_integer() || item.get<int64_t>() < min || item.get<int64_t>() > max) {
      fail(key, "got " + show(*value) + ", expected " + expected);
    }
    numbers.push_back(item.get<int64_t>());
  }
  return numbers;
}

JsonObjectReader JsonObjectReader::child(const std::string& key) {
  static const nlohmann::json kEmptyObject = nlohmann::json::object();
  const auto* value = lookup(key);
  return JsonObjectReader(value == nullptr ? kEmptyObject : *value, file_, field_path(key));
}

void JsonObjectReader::reject_unknown_keys() const {
  for (const auto& [key, value] : object_.items()) {
    if (consumed_.count(key) == 0) {
      std::string known;
      for (const auto& name : consumed_) known += (known.empty() ? "" : ", ") + name;
      fail(key, "unknown key; known keys here: " + known);
    }
  }
}

nlohmann::json parse_json_text(const std::string& text, const std::string& file) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& error) {
    // Turn the byte offset into a line and column a person can jump to.
    size_t line = 1, column = 1;
    for (size_t i = 0; i + 1 < error.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw ConfigError(file, "",
                      "invalid JSON at line " + std::to_string(line) + ", column " +
                          std::to_string(column) + ": " + error.what());
  } catch (const nlohmann::json::exception& error) {
    // Not a syntax error but still the text's fault, e.g. a number too large for a double
    // ("77e12470", found by the fuzzer).
    throw ConfigError(file, "", std::string("invalid JSON: ") + error.what());
  }
}

std::string read_text_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw ConfigError(file, "", "cannot open the file for reading");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

nlohmann::json read_json_file(const std::string& file) {
  return parse_json_text(read_text_file(file), file);
}

}  // namespace speedbench
