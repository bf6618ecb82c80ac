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

}  // namespace speedbench
