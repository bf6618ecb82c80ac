// The one error type for bad user input: it names the file, the field and what was expected,
// so the CLI can print one clear line and exit with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace speedbench {

class ConfigError : public std::runtime_error {
 public:
  ConfigError(std::string file, std::string field, std::string message)
      : std::runtime_error(format(file, field, message)),
        file_(std::move(file)),
        field_(std::move(field)),
        message_(std::move(message)) {}

  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }
  const std::string& message() const { return message_; }

  // This error naming `file` where it named none: code that finds a field at odds with the loaded
  // data (a batch larger than the dataset) does not know which file the config came from.
  ConfigError in_file(const std::string& file) const {
    return file_.empty() ? ConfigError(file, field_, message_) : *this;
  }

 private:
  static std::string format(const std::string& file, const std::string& field,
                            const std::string& message) {
    std::string where = file.empty() ? "<config>" : file;
    if (!field.empty()) where += ": field '" + field + "'";
    return where + ": " + message;
  }
  std::string file_;
  std::string field_;
  std::string message_;
};

// Runs `body`; a ConfigError that names no file leaves naming `file`.
template <typename Body>
auto naming_config_file(const std::string& file, Body&& body) {
  try {
    return body();
  } catch (const ConfigError& error) {
    throw error.in_file(file);
  }
}

}  // namespace speedbench
