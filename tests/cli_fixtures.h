// What the end-to-end tests of the CLI share: the binary, a tiny config and a suite of it, the
// command that runs that suite, the one run folder it makes, and the bad-input check.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "build_paths.h"
#include "tests/test_support.h"

namespace speedbench::testing {

inline std::string speedbench_cli() { return speedbench_executable(); }

// A ResNet on 256 Fashion-MNIST examples, batch 64: a run takes a second or two.
inline constexpr const char* kTinyConfig = R"({
  "data": {"train_samples": 256, "test_samples": 128},
  "model": {"widths": [8, 16, 32]},
  "batch_size": 64, "warmup_steps": 1, "progress_every_s": 0
})";

// Bad input: exit code 2 and an error that says `message`.
inline void expect_bad_input(const CommandResult& result, const std::string& message) {
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(message), std::string::npos) << result.output;
}

// A grid of two variants (SGD, Adam) of the tiny config, `repetitions` times.
inline std::string mini_suite(int repetitions) {
  return std::string(R"({
    "name": "mini", "design": "grid", "repetitions": )") +
         std::to_string(repetitions) + R"(,
    "base": )" +
         kTinyConfig + R"(,
    "workloads": [{"name": "tiny"}],
    "variants": [{"name": "sgd"}, {"name": "adam", "config": {"optimizer": {"name": "adam", "lr": 0.001}}}]
  })";
}

// `speedbench run` of the folder's suite.json into its results/.
inline std::string run_suite_command(const TempDir& dir) {
  return speedbench_cli() + " run --suite " + dir.file("suite.json") + " --out " +
         dir.file("results");
}

// The run folder (the one with a plan.json) a suite made under `suite_root`; a test expects
// exactly one.
inline std::filesystem::path only_run_folder(const std::filesystem::path& suite_root) {
  std::vector<std::filesystem::path> with_plan;
  for (const auto& entry : std::filesystem::directory_iterator(suite_root)) {
    if (std::filesystem::exists(entry.path() / "plan.json")) with_plan.push_back(entry.path());
  }
  EXPECT_EQ(with_plan.size(), 1u);
  return with_plan.empty() ? suite_root : with_plan.front();
}

}  // namespace speedbench::testing
