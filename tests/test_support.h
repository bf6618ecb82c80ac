// Helpers shared by the tests: a temporary folder, file writers, running the CLI.
#pragma once

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "harness/report/claims.h"
#include "harness/report/comparisons.h"
#include "harness/results/record.h"
#include "harness/results/records_file.h"

namespace speedbench::testing {

// A fresh folder under the system temp dir, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::random_device random;
    path_ = std::filesystem::temp_directory_path() /
            ("speedbench-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// A script that stands in for a program (a second speedbench build, say): written, and made
// executable by its owner.
inline void write_executable(const std::string& path, const std::string& text) {
  write_text(path, text);
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

// A claims registry with no claims, in `dir`, for a report that needs no verdicts: its path.
inline std::string empty_claims_file(const TempDir& dir) {
  write_text(dir.file("no-claims.json"), R"({"claims": []})");
  return dir.file("no-claims.json");
}

// The whole file ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_gzip(const std::string& path, const std::vector<uint8_t>& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
}

// An IDX header of unsigned bytes: magic number, then each dimension's size (big-endian).
inline std::vector<uint8_t> idx_header(uint8_t dims, const std::vector<uint32_t>& sizes) {
  std::vector<uint8_t> bytes = {0, 0, 8, dims};
  for (auto size : sizes) {
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back((size >> shift) & 0xff);
  }
  return bytes;
}

// An environment variable set (or, with nullopt, unset) for a scope, then as it was.
class ScopedEnvironmentVariable {
 public:
  ScopedEnvironmentVariable(std::string name, const std::optional<std::string>& value)
      : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    set(value);
  }
  ~ScopedEnvironmentVariable() { set(old_); }
  ScopedEnvironmentVariable(const ScopedEnvironmentVariable&) = delete;
  ScopedEnvironmentVariable& operator=(const ScopedEnvironmentVariable&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  std::string name_;
  std::optional<std::string> old_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line and captures its output and exit code.
inline CommandResult run_command(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) result.output += buffer.data();
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// Runs `executable args...` as a launcher may start it, with SIGCHLD ignored (that survives
// exec), output discarded. Its exit code (128 + signal when killed), or nothing when it had not
// ended after 2 minutes (it is killed then).
inline std::optional<int> run_with_sigchld_ignored(const std::string& executable,
                                                   const std::vector<std::string>& args) {
  std::vector<char*> argv = {const_cast<char*>(executable.c_str())};
  for (const auto& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    std::signal(SIGCHLD, SIG_IGN);
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, STDOUT_FILENO);
    ::dup2(null_fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  for (int tenth = 0; tenth < 1200; ++tenth) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    ::usleep(100 * 1000);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return std::nullopt;
}

// A record as a suite run would write it, with the numbers a report compares.
inline Record synthetic_record(const std::string& workload, const std::string& variant,
                               int64_t repetition, double samples_per_s, int64_t peak_bytes) {
  Record r;
  r.suite = "synthetic";
  r.workload = workload;
  r.variant = variant;
  r.repetition = repetition;
  r.seed = repetition;  // as a suite seeds repetition k of every variant
  r.config = {{"device", "cpu"}, {"workload", workload}};
  r.metrics.steps = 10;
  r.metrics.samples_per_s = samples_per_s;
  if (samples_per_s > 0) r.metrics.step_ms = {1000.0 / samples_per_s};
  r.metrics.peak_allocated_bytes = peak_bytes;
  r.metrics.parameter_count = 1000;
  r.metrics.final_test_accuracy = 0.9;
  r.environment = {{"host", "test"}};
  return r;
}

// Repetition k of `variant` on workload "w" at throughputs[k] samples/s and `bytes` of peak memory.
inline std::vector<Record> synthetic_runs(const std::string& variant,
                                          const std::vector<double>& throughputs,
                                          int64_t bytes = 1000) {
  std::vector<Record> records;
  for (size_t k = 0; k < throughputs.size(); ++k) {
    records.push_back(
        synthetic_record("w", variant, static_cast<int64_t>(k), throughputs[k], bytes));
  }
  return records;
}

// A run folder `name` (its records in name/runs.jsonl) of the records of each variant in turn,
// as compare and the report read one; no plan.
inline report::Results synthetic_folder(const std::string& name,
                                        const std::vector<std::vector<Record>>& variants) {
  report::Results results;
  results.folder = name;
  results.records_path = name + "/runs.jsonl";
  for (const auto& records : variants)
    results.records.insert(results.records.end(), records.begin(), records.end());
  results.suite = "synthetic";
  results.device = "cpu";
  return results;
}

// Baseline at 100 samples/s and 1000 bytes; "fast" at 140..160 samples/s and 500 bytes: a
// throughput ratio of 1.5 with an interval around it, a memory ratio of exactly 0.5.
inline void write_synthetic_results(const std::string& records_path) {
  const double fast[] = {140, 145, 150, 155, 160};
  for (int rep = 0; rep < 5; ++rep) {
    append_record(records_path, synthetic_record("w", "baseline", rep, 100, 1000));
    append_record(records_path, synthetic_record("w", "fast", rep, fast[rep], 500));
  }
}

// A claim on the technique "fast" of write_synthetic_results, on any workload.
inline report::Claim synthetic_claim(const std::string& id, const std::string& metric,
                                     const std::string& direction, double threshold,
                                     bool gate = false) {
  report::Claim c;
  c.id = id;
  c.technique = "fast";
  c.metric = metric;
  c.direction = direction;
  c.threshold = threshold;
  c.gate = gate;
  c.source = "test";
  return c;
}

}  // namespace speedbench::testing
