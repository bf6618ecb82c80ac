// End-to-end tests of `speedbench run --suite`: each run in a process of its own, interleaved,
// interrupted and resumed, stopped by a time budget, and refused before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "harness/results/records_file.h"
#include "tests/cli_fixtures.h"

namespace speedbench {
namespace {

using testing::expect_bad_input;
using testing::mini_suite;
using testing::only_run_folder;
using testing::read_text;
using testing::run_command;
using testing::run_suite_command;
using testing::speedbench_cli;
using testing::TempDir;
using testing::write_text;

TEST(CliSuiteTest, SuiteRunsEachEntryInItsOwnProcessAndRecordsAll) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(2));
  const auto result = run_command(run_suite_command(dir));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("[4/4] tiny / adam (rep 1)"), std::string::npos) << result.output;
  const auto folder = only_run_folder(dir.file("results/mini"));
  const auto records = read_records((folder / "runs.jsonl").string());
  ASSERT_EQ(records.size(), 4u);
  // Interleaved: A B A B, and each repetition has its own seed.
  EXPECT_EQ(records[0].variant, "sgd");
  EXPECT_EQ(records[0].workload, "tiny");
  EXPECT_EQ(records[1].variant, "adam");
  EXPECT_EQ(records[1].config["optimizer"]["name"], "adam");
  EXPECT_EQ(records[2].repetition, 1);
  EXPECT_EQ(records[2].seed, records[0].seed + 1);
  EXPECT_TRUE(std::filesystem::exists(folder / "plan.json"));
}

// Each way a run can end is counted in the suite's closing line and kept in its record: here an ok
// run, a GPU-only variant on this CPU (not applicable, no training) and an out-of-memory run.
TEST(CliSuiteTest, TheClosingLineCountsEachRunsOutcome) {
  TempDir dir;
  write_text(dir.file("suite.json"), std::string(R"({
    "name": "outcomes", "design": "grid", "repetitions": 1, "base": )") +
                                         testing::kTinyConfig + R"(,
    "workloads": [{"name": "tiny"}],
    "variants": [{"name": "sgd"}, {"name": "tf32", "config": {"techniques": {"tf32": true}}},
                 {"name": "adam", "config": {"optimizer": {"name": "adam", "lr": 0.001}}}]})");
  const auto result = run_command("SPEEDBENCH_INJECT_FAULT=2:oom " + run_suite_command(dir));
  EXPECT_NE(result.output.find("suite outcomes: 1 ok, 1 diverged/oom, 1 not applicable, 0 crashed"),
            std::string::npos)
      << result.output;
  const auto records =
      read_records((only_run_folder(dir.file("results/outcomes")) / "runs.jsonl").string());
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].status, RunStatus::kOk);
  EXPECT_EQ(records[1].status, RunStatus::kNotApplicable);
  EXPECT_NE(records[1].message.find("tf32 applies only on cuda"), std::string::npos);
  EXPECT_EQ(records[2].status, RunStatus::kOutOfMemory) << records[2].message;
  EXPECT_EQ(result.exit_code, 0) << "no run crashed";
}

// The runner learns how each run ended from waitpid, which an ignored SIGCHLD breaks (the kernel
// reaps the child first): it spun on waitpid at 100% CPU forever. The first run dies of SIGSEGV:
// only a runner that restored SIGCHLD's default can still tell how it died.
TEST(CliSuiteTest, ASuiteStartedWithSigchldIgnoredRunsToTheEndAndKnowsHowEachRunEnded) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  // env(1) sets the fault for the suite and its runs; the ignored SIGCHLD survives its exec.
  const auto exit_code = testing::run_with_sigchld_ignored(
      "/usr/bin/env", {"SPEEDBENCH_INJECT_FAULT=0:segfault", speedbench_cli(), "run", "--suite",
                       dir.file("suite.json"), "--out", dir.file("out")});
  ASSERT_TRUE(exit_code.has_value()) << "the suite did not end within 2 minutes";
  EXPECT_EQ(*exit_code, 1);  // a crashed run makes the suite fail
  const auto folder = only_run_folder(dir.file("out/mini"));
  const auto records = read_records((folder / "runs.jsonl").string());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].status, RunStatus::kCrashed);
  EXPECT_NE(records[0].message.find("killed by signal 11"), std::string::npos)
      << records[0].message;
  EXPECT_EQ(records[1].status, RunStatus::kOk) << records[1].message;
}

TEST(CliSuiteTest, InterruptedSuiteResumesWithoutDuplicateOrMissingRecords) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(3));
  const auto run = run_suite_command(dir);
  // Interrupt (SIGINT, as Ctrl-C) once the first record is written: the run in flight is dropped.
  const auto interrupted =
      run_command("(" + run +
                  " & pid=$!; for i in $(seq 600); do "
                  "[ -s \"$(ls " +
                  dir.file("results/mini") +
                  "/*/runs.jsonl 2>/dev/null | head -1)\" ] && break; "
                  "sleep 0.05; done; kill -INT $pid; wait $pid; echo exit=$?)");
  EXPECT_NE(interrupted.output.find("exit=130"), std::string::npos) << interrupted.output;
  EXPECT_NE(interrupted.output.find("interrupted"), std::string::npos) << interrupted.output;
  EXPECT_NE(interrupted.output.find("--resume"), std::string::npos) << interrupted.output;
  const auto folder = only_run_folder(dir.file("results/mini"));
  const auto before = read_records((folder / "runs.jsonl").string()).size();
  EXPECT_GE(before, 1u);
  EXPECT_LT(before, 6u);

  const auto resumed = run_command(run + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming: " + std::to_string(before) + " runs already recorded"),
            std::string::npos)
      << resumed.output;
  const auto records =
      read_records((only_run_folder(dir.file("results/mini")) / "runs.jsonl").string());
  std::vector<int64_t> indexes;
  for (const auto& r : records) indexes.push_back(r.run_index);
  std::sort(indexes.begin(), indexes.end());
  EXPECT_EQ(indexes, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
  for (const auto& r : records) EXPECT_EQ(r.status, RunStatus::kOk) << r.message;

  // A different plan (another repetition count) is not resumed into this folder.
  const auto other = run_command(run + " --resume --repetitions 2");
  expect_bad_input(other, "field '--resume': no earlier run of suite mini");
}

// A budget shorter than one run: the first run always starts (nothing is known before it), then
// the suite stops between runs with exit 0, says what it left out, and --resume runs the rest.
TEST(CliSuiteTest, ATimeBudgetStopsTheSuiteBetweenRunsAndResumeRunsTheRest) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(2));
  const auto run = run_suite_command(dir);
  const auto budgeted = run_command(run + " --time-budget 0.001");
  ASSERT_EQ(budgeted.exit_code, 0) << budgeted.output;
  const std::string stop_line =
      "suite mini: stopped at its time budget of 0.001 s: the next run, tiny / adam (rep 0), was "
      "expected to take ";
  const auto stop_at = budgeted.output.find(stop_line);
  ASSERT_NE(stop_at, std::string::npos) << budgeted.output;
  // What the first run took (a process start and a few steps), not 0: the estimate saw it.
  EXPECT_GT(std::strtod(budgeted.output.c_str() + stop_at + stop_line.size(), nullptr), 0.05)
      << budgeted.output;
  EXPECT_NE(budgeted.output.find("3 of 4 planned runs not started. Continue with the same "
                                 "command and --resume"),
            std::string::npos)
      << budgeted.output;
  const auto folder = only_run_folder(dir.file("results/mini"));
  const auto records_path = (folder / "runs.jsonl").string();
  ASSERT_EQ(read_records(records_path).size(), 1u);

  const auto report = run_command(speedbench_cli() + " report " + folder.string() + " --claims " +
                                  testing::empty_claims_file(dir));
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const auto short_report = read_text((folder / "report.md").string());
  EXPECT_NE(short_report.find("**1 of the 4 planned runs are recorded**"), std::string::npos)
      << short_report;
  auto summary = nlohmann::json::parse(read_text((folder / "summary.json").string()));
  EXPECT_EQ(summary["records"], 1);
  EXPECT_EQ(summary["planned_runs"], 4);

  // The folder notes the build that started it; resuming with another is said, not refused
  // (without --against the build is not what the suite measures).
  const auto builds_path = (folder / "builds.json").string();
  auto builds = nlohmann::json::parse(read_text(builds_path));
  write_text(builds_path, "[]");
  expect_bad_input(run_command(run + " --resume"), "builds.json: expected a JSON object");
  const auto version = run_command(speedbench_cli() + " --version").output;
  EXPECT_EQ(builds["this"]["version"], version.substr(0, version.find('\n')));
  builds["this"]["fingerprint"] = "crc32 00000000, 1 bytes";
  write_text(builds_path, builds.dump());

  const auto resumed = run_command(run + " --resume --time-budget 3600");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming: the run folder's own runs were made by "),
            std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("the same --version line but other bytes"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(resumed.output.find("stopped at its time budget"), std::string::npos) << resumed.output;
  std::vector<int64_t> indexes;
  for (const auto& r : read_records(records_path)) indexes.push_back(r.run_index);
  EXPECT_EQ(indexes, (std::vector<int64_t>{0, 1, 2, 3}));
  ASSERT_EQ(run_command(speedbench_cli() + " report " + folder.string() + " --claims " +
                        testing::empty_claims_file(dir))
                .exit_code,
            0);
  EXPECT_EQ(read_text((folder / "report.md").string()).find("planned runs are recorded"),
            std::string::npos);
  summary = nlohmann::json::parse(read_text((folder / "summary.json").string()));
  EXPECT_EQ(summary["records"], 4);
  EXPECT_EQ(summary["planned_runs"], 4);
}

TEST(CliSuiteTest, SuiteWithABadVariantIsRejectedBeforeAnythingRuns) {
  TempDir dir;
  write_text(dir.file("suite.json"), R"({
    "name": "bad", "base": {}, "workloads": [{"name": "w"}],
    "variants": [{"name": "ok"}, {"name": "broken", "config": {"optimizer": {"lr": "fast"}}}]
  })");
  const auto result = run_command(run_suite_command(dir));
  expect_bad_input(result, "variants[1] (broken) on workload w: optimizer.lr");
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

TEST(CliSuiteTest, CudaSuiteOnAMachineWithoutGpuIsAClearError) {
  TempDir dir;
  write_text(dir.file("suite.json"), R"({
    "name": "g", "device": "cuda", "workloads": [{"name": "w"}],
    "variants": [{"name": "a"}, {"name": "b", "config": {"techniques": {"tf32": true}}}]
  })");
  const auto result = run_command(run_suite_command(dir));
  if (result.output.find("suite g:") != std::string::npos) GTEST_SKIP() << "this machine has a GPU";
  expect_bad_input(result, "field 'device': this suite is for \"cuda\" but no CUDA device");
}

}  // namespace
}  // namespace speedbench
