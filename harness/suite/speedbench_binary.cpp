#include "harness/suite/speedbench_binary.h"

#include <unistd.h>
#include <zlib.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>
#include <vector>

#include "harness/config/config_error.h"
#include "harness/config/json_reader.h"
#include "harness/os/child_process.h"
#include "harness/results/environment.h"
#include "harness/results/records_file.h"

namespace speedbench {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void reject(const std::string& path, const std::string& why) {
  throw ConfigError("command line", "--against",
                    "got \"" + path + "\", expected a speedbench executable: " + why);
}

// What `argv` writes to stdout (its first 64 KiB) and how it ended ("" for exit code 0).
std::pair<std::string, std::string> output_of(const std::vector<std::string>& argv) {
  const auto child = spawn_with_pipe(argv, STDOUT_FILENO);
  if (!child) return {"", "could not be started"};
  std::string output;
  read_until_closed(child->read_fd, [&output](const char* bytes, size_t count) {
    if (output.size() < 65536) output.append(bytes, count);
  });
  const auto ended = wait_for_child(child->pid);
  return {output, ended};
}

// The option names a CLI11 help text lists: each line's first word where it starts with "-",
// split at commas ("  -h,--help  Print ..." lists -h and --help).
std::set<std::string> options_listed_in(const std::string& help) {
  std::set<std::string> options;
  std::istringstream lines(help);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first.front() != '-') continue;
    std::istringstream names(first);
    for (std::string name; std::getline(names, name, ',');) options.insert(name);
  }
  return options;
}

// "crc32 1a2b3c4d, 2760992 bytes"; "" when the file cannot be read. A CRC, not a cryptographic
// hash: it tells builds apart, it does not guard against someone forging one.
std::string fingerprint_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::vector<char> chunk(1 << 20);
  uLong crc = crc32(0L, Z_NULL, 0);
  uintmax_t size = 0;
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    const auto count = static_cast<size_t>(in.gcount());
    crc = crc32(crc, reinterpret_cast<const Bytef*>(chunk.data()), static_cast<uInt>(count));
    size += count;
  }
  if (in.bad()) return "";
  char text[64];
  std::snprintf(text, sizeof text, "crc32 %08lx, %ju bytes", crc, size);
  return text;
}

nlohmann::json builds_entry(const SpeedbenchBinary& binary) {
  return {{"path", binary.path}, {"version", binary.version}, {"fingerprint", binary.fingerprint}};
}

// "" when `now` is the build noted under `side` ("this" or "against"); else what differs.
std::string build_change(const fs::path& builds_path, const nlohmann::json& noted,
                         const std::string& side, const SpeedbenchBinary& now) {
  const auto entry = noted.value(side, nlohmann::json());
  if (!entry.is_object() || !entry.value("version", nlohmann::json()).is_string() ||
      !entry.value("fingerprint", nlohmann::json()).is_string()) {
    throw ConfigError(builds_path.string(), side,
                      "expected an object with \"version\" and \"fingerprint\" strings");
  }
  const auto version = entry["version"].get<std::string>();
  const auto fingerprint = entry["fingerprint"].get<std::string>();
  if (version == now.version && fingerprint == now.fingerprint) return "";
  const bool self = side == "this";
  const auto differs = version == now.version
                           ? "the same --version line but other bytes (" + now.fingerprint + ")"
                           : now.version + " (" + now.fingerprint + ")";
  return std::string("the run folder's ") + (self ? "own runs" : "--against runs") +
         " were made by " + entry.value("path", "?") + " (" + version + "; " + fingerprint +
         "), but " + (self ? "this binary" : "--against") + " is " + now.path + ", " + differs;
}

}  // namespace

SpeedbenchBinary this_binary() {
  const auto path = fs::canonical("/proc/self/exe");
  return {path.string(), version_line(), fingerprint_of(path)};
}

SpeedbenchBinary check_against_binary(const std::string& path) {
  std::error_code error;
  const auto resolved = fs::canonical(path, error);
  if (error) reject(path, error.message());
  if (!fs::is_regular_file(resolved)) reject(path, "not a file");
  if (::access(resolved.c_str(), X_OK) != 0) reject(path, "not executable");
  const auto fingerprint = fingerprint_of(resolved);
  if (fingerprint.empty()) reject(path, "not readable");
  const auto [version, version_ended] = output_of({resolved.string(), "--version"});
  if (!version_ended.empty()) reject(path, "its --version " + version_ended);
  const auto line = version.substr(0, version.find('\n'));
  if (line.rfind("speedbench ", 0) != 0) {
    reject(path, "its --version printed \"" + line.substr(0, 80) +
                     "\", not a line starting with \"speedbench \"");
  }
  // An older build that lacks an option the runner passes would fail every run: say so now.
  const auto [help, help_ended] = output_of({resolved.string(), "run-one", "--help"});
  if (!help_ended.empty()) reject(path, "its `run-one --help` " + help_ended);
  const auto listed = options_listed_in(help);
  std::string missing;
  for (const auto& option : kRunOneOptionsTheRunnerPasses) {
    if (listed.count(option) == 0) missing += (missing.empty() ? "" : ", ") + option;
  }
  if (!missing.empty()) {
    reject(path, line + " has a `run-one` without " + missing +
                     ", which the suite runner passes to every run: build a newer commit");
  }
  return {resolved.string(), line, fingerprint};
}

void note_builds(const fs::path& run_folder, const SpeedbenchBinary& self,
                 const std::optional<SpeedbenchBinary>& against) {
  nlohmann::json builds = {{"this", builds_entry(self)}};
  if (against) builds["against"] = builds_entry(*against);
  write_json_file_whole(run_folder / kBuildsFile, builds);
}

void check_same_builds(const fs::path& run_folder, const SpeedbenchBinary& self,
                       const std::optional<SpeedbenchBinary>& against) {
  const auto builds_path = run_folder / kBuildsFile;
  if (!fs::exists(builds_path)) {
    std::fprintf(stderr,
                 "resuming: %s names no builds (made before speedbench noted them): not checked "
                 "that the binaries are the ones that started it\n",
                 run_folder.c_str());
    return;
  }
  const auto noted = read_json_file(builds_path.string());
  if (!noted.is_object()) {
    throw ConfigError(builds_path.string(), "", "expected a JSON object (written by run --suite)");
  }
  if (!against) {
    const auto change = build_change(builds_path, noted, "this", self);
    if (!change.empty()) {
      std::fprintf(stderr, "resuming: %s: the folder's records will come from two builds\n",
                   change.c_str());
    }
    return;
  }
  for (const auto& [side, now] : {std::pair{"this", &self}, std::pair{"against", &*against}}) {
    const auto change = build_change(builds_path, noted, side, *now);
    if (!change.empty()) {
      throw ConfigError(builds_path.string(), side,
                        change +
                            ": a pair of runs must come from the two builds noted, so resume "
                            "with those, or run without --resume to start a new folder");
    }
  }
}

}  // namespace speedbench
