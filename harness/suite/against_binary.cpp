#include "harness/suite/against_binary.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

#include "harness/config/config_error.h"
#include "harness/os/child_process.h"

namespace speedbench {

namespace {

[[noreturn]] void reject(const std::string& path, const std::string& why) {
  throw ConfigError("command line", "--against",
                    "got \"" + path + "\", expected a speedbench executable: " + why);
}

// The first line `argv` writes to stdout ("" if none) and how it ended ("" for exit code 0).
std::pair<std::string, std::string> first_output_line(const std::vector<std::string>& argv) {
  const auto child = spawn_with_pipe(argv, STDOUT_FILENO);
  if (!child) return {"", "could not be started"};
  std::string output;
  read_until_closed(child->read_fd, [&output](const char* bytes, size_t count) {
    if (output.size() < 65536) output.append(bytes, count);
  });
  const auto ended = wait_for_child(child->pid);
  return {output.substr(0, output.find('\n')), ended};
}

}  // namespace

AgainstBinary check_against_binary(const std::string& path) {
  std::error_code error;
  const auto resolved = std::filesystem::canonical(path, error);
  if (error) reject(path, error.message());
  if (!std::filesystem::is_regular_file(resolved)) reject(path, "not a file");
  if (::access(resolved.c_str(), X_OK) != 0) reject(path, "not executable");
  const auto [line, ended] = first_output_line({resolved.string(), "--version"});
  if (!ended.empty()) reject(path, "its --version " + ended);
  if (line.rfind("speedbench ", 0) != 0) {
    reject(path, "its --version printed \"" + line.substr(0, 80) +
                     "\", not a line starting with \"speedbench \"");
  }
  return {resolved.string(), line};
}

}  // namespace speedbench
