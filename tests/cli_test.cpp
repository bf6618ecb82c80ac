// End-to-end tests of the speedbench binary: exit codes, messages, and the files it writes.
#include <gtest/gtest.h>

#include <torch/version.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "build_paths.h"
#include "harness/data/datasets.h"
#include "harness/measure/usable_cpu_cores.h"
#include "harness/results/environment.h"
#include "harness/results/records_file.h"
#include "harness/suite/speedbench_binary.h"
#include "tests/test_support.h"

namespace speedbench {
namespace {

using testing::read_text;
using testing::run_command;
using testing::TempDir;
using testing::write_executable;
using testing::write_text;

std::string speedbench_cli() { return testing::speedbench_executable(); }

const char* kTinyConfig = R"({
  "data": {"train_samples": 256, "test_samples": 128},
  "model": {"widths": [8, 16, 32]},
  "batch_size": 64, "warmup_steps": 1, "progress_every_s": 0
})";

// Bad input: exit code 2 and an error that says `message`.
void expect_bad_input(const testing::CommandResult& result, const std::string& message) {
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find(message), std::string::npos) << result.output;
}

TEST(CliTest, ListShowsEveryTechnique) {
  const auto result = run_command(speedbench_cli() + " list");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const auto* id : {"lr_schedule", "amp", "cudnn_benchmark", "ddp", "input_norm",
                         "channels_last", "tf32", "cuda_graphs"}) {
    EXPECT_NE(result.output.find(id), std::string::npos) << id;
  }
}

TEST(CliTest, VersionNamesTheBuild) {
  const auto result = run_command(speedbench_cli() + " --version");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output, version_line() + "\n");
  EXPECT_EQ(result.output.rfind("speedbench ", 0), 0u) << result.output;
  EXPECT_NE(result.output.find(std::string(", LibTorch ") + TORCH_VERSION + ", CUDA code "),
            std::string::npos)
      << result.output;
}

TEST(CliTest, RunOneWritesARecordAndASummary) {
  TempDir dir;
  write_text(dir.file("tiny.json"), kTinyConfig);
  const auto records = dir.file("runs.jsonl");
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("tiny.json") +
                                  " --records " + records);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("fashion_mnist/resnet / baseline: ok"), std::string::npos)
      << result.output;
  const auto written = read_records(records);
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].metrics.steps, 4);
  EXPECT_EQ(written[0].config["batch_size"], 64);
}

TEST(CliTest, ARunWithMoreThreadsThanCoresIsWarnedOfAndFlaggedInTheReport) {
  const int64_t cores = measure::usable_cpu_cores();
  if (cores == 0) GTEST_SKIP() << "this machine does not say how many cores it has";
  TempDir dir;
  const auto threads = cores + 1;
  auto config = nlohmann::json::parse(kTinyConfig);
  config["threads"] = threads;
  config["max_steps"] = 2;
  write_text(dir.file("busy.json"), config.dump());
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("busy.json") +
                                  " --records " + dir.file("run/runs.jsonl"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto oversubscribed =
      std::to_string(threads) + " threads on " + std::to_string(cores) + " cores";
  EXPECT_NE(result.output.find("warning: " + oversubscribed + ": the threads will take turns"),
            std::string::npos)
      << result.output;
  ASSERT_EQ(run_command(speedbench_cli() + " report " + dir.file("run") + " --claims " +
                        testing::empty_claims_file(dir))
                .exit_code,
            0);
  EXPECT_NE(read_text(dir.file("run/report.md")).find("oversubscribed: " + oversubscribed),
            std::string::npos)
      << read_text(dir.file("run/report.md"));
}

TEST(CliTest, ARunThatTasksetKeepsToOneCoreIsWarnedOfAndRecordsItsUsableCores) {
  if (measure::usable_cpu_cores() < 2) GTEST_SKIP() << "this process has one core to run on";
  if (run_command("taskset -c 0 true").exit_code != 0) GTEST_SKIP() << "no taskset here";
  TempDir dir;
  auto config = nlohmann::json::parse(kTinyConfig);
  config["threads"] = 2;
  config["max_steps"] = 2;
  write_text(dir.file("two.json"), config.dump());
  const auto result = run_command("taskset -c 0 " + speedbench_cli() + " run-one --config " +
                                  dir.file("two.json") + " --records " + dir.file("runs.jsonl"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("warning: 2 threads on 1 core: the threads will take turns"),
            std::string::npos)
      << result.output;
  const auto record = read_last_record(dir.file("runs.jsonl"));
  EXPECT_EQ(record.environment.value("cpu_cores_usable", int64_t{-1}), 1);
  EXPECT_EQ(record.environment.value("cpu_cores", int64_t{-1}),
            static_cast<int64_t>(std::thread::hardware_concurrency()));
}

TEST(CliTest, BadConfigExitsWithCode2AndWritesNothing) {
  TempDir dir;
  write_text(dir.file("bad.json"), R"({"batch_size": -3})");
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("bad.json") +
                                  " --out " + dir.file("results"));
  expect_bad_input(result, dir.file("bad.json") + ": field 'batch_size': got -3");
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

// A folder without the IDX files (a missing folder is in the bad-input catalogue).
TEST(CliTest, MissingDatasetIsBadInput) {
  TempDir dir;
  write_text(dir.file("tiny.json"), kTinyConfig);
  std::filesystem::create_directories(dir.file("empty"));
  const auto result =
      run_command(speedbench_cli() + " run-one --config " + dir.file("tiny.json") +
                  " --data-root " + dir.file("empty") + " --out " + dir.file("results"));
  expect_bad_input(result,
                   dir.file("empty") + "/train-images-idx3-ubyte.gz: cannot open the IDX file");
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

TEST(CliTest, BatchLargerThanTheDataIsBadInput) {
  TempDir dir;
  write_text(dir.file("big.json"), R"({"data": {"train_samples": 100}, "batch_size": 128})");
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("big.json") +
                                  " --out " + dir.file("results"));
  expect_bad_input(result, "field 'batch_size': got 128, more than the 100 training examples");
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

TEST(CliTest, CudaRunWithoutAGpuIsRecordedAsNotApplicable) {
  TempDir dir;
  write_text(dir.file("cuda.json"), R"({"device": "cuda", "data": {"train_samples": 128}})");
  const auto records = dir.file("runs.jsonl");
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("cuda.json") +
                                  " --records " + records);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const auto written = read_records(records);
  ASSERT_EQ(written.size(), 1u);
  if (written[0].environment["cuda_available"].get<bool>())
    GTEST_SKIP() << "this machine has a GPU";
  EXPECT_EQ(written[0].status, RunStatus::kNotApplicable);
  EXPECT_NE(written[0].message.find("no CUDA device"), std::string::npos);
}

// A grid of two variants (SGD, Adam) of the tiny config, `repetitions` times.
std::string mini_suite(int repetitions) {
  return std::string(R"({
    "name": "mini", "design": "grid", "repetitions": )") +
         std::to_string(repetitions) + R"(,
    "base": )" +
         kTinyConfig + R"(,
    "workloads": [{"name": "tiny"}],
    "variants": [{"name": "sgd"}, {"name": "adam", "config": {"optimizer": {"name": "adam", "lr": 0.001}}}]
  })";
}

std::filesystem::path only_run_folder(const std::string& suite_root) {
  std::vector<std::filesystem::path> folders;
  for (const auto& entry : std::filesystem::directory_iterator(suite_root))
    folders.push_back(entry.path());
  EXPECT_EQ(folders.size(), 1u);
  return folders.at(0);
}

// `speedbench run` of the folder's suite.json into its results/.
std::string run_suite_command(const TempDir& dir) {
  return speedbench_cli() + " run --suite " + dir.file("suite.json") + " --out " +
         dir.file("results");
}

TEST(CliTest, SuiteRunsEachEntryInItsOwnProcessAndRecordsAll) {
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

// The runner learns how each run ended from waitpid, which an ignored SIGCHLD breaks (the kernel
// reaps the child first): it spun on waitpid at 100% CPU forever. The first run dies of SIGSEGV:
// only a runner that restored SIGCHLD's default can still tell how it died.
TEST(CliTest, ASuiteStartedWithSigchldIgnoredRunsToTheEndAndKnowsHowEachRunEnded) {
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

TEST(CliTest, InterruptedSuiteResumesWithoutDuplicateOrMissingRecords) {
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
TEST(CliTest, ATimeBudgetStopsTheSuiteBetweenRunsAndResumeRunsTheRest) {
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

TEST(CliTest, SuiteWithABadVariantIsRejectedBeforeAnythingRuns) {
  TempDir dir;
  write_text(dir.file("suite.json"), R"({
    "name": "bad", "base": {}, "workloads": [{"name": "w"}],
    "variants": [{"name": "ok"}, {"name": "broken", "config": {"optimizer": {"lr": "fast"}}}]
  })");
  const auto result = run_command(run_suite_command(dir));
  expect_bad_input(result, "variants[1] (broken) on workload w: optimizer.lr");
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

TEST(CliTest, CudaSuiteOnAMachineWithoutGpuIsAClearError) {
  TempDir dir;
  write_text(dir.file("suite.json"), R"({
    "name": "g", "device": "cuda", "workloads": [{"name": "w"}],
    "variants": [{"name": "a"}, {"name": "b", "config": {"techniques": {"tf32": true}}}]
  })");
  const auto result = run_command(run_suite_command(dir));
  if (result.output.find("suite g:") != std::string::npos) GTEST_SKIP() << "this machine has a GPU";
  expect_bad_input(result, "field 'device': this suite is for \"cuda\" but no CUDA device");
}

// CI's gate: verify exits 1 when a gating claim is refuted, 0 when every one is confirmed (and
// when none gates these results, which it says).
TEST(CliTest, VerifyFailsWhenAGatedClaimIsRefuted) {
  TempDir dir;
  speedbench::testing::write_synthetic_results(dir.file("run/runs.jsonl"));
  auto claims = [](const std::string& threshold) {
    return R"({"claims": [
      {"id": "fast-is-faster", "technique": "fast", "metric": "throughput", "direction": ">=",
       "threshold": )" +
           threshold + R"(, "gate": true, "source": "test"},
      {"id": "fast-uses-half", "technique": "fast", "metric": "peak_bytes", "direction": "<=",
       "threshold": 0.5, "gate": true, "source": "test"}]})";
  };
  write_text(dir.file("confirmed.json"), claims("1.3"));
  write_text(dir.file("refuted.json"), claims("2.0"));
  const auto ok = run_command(speedbench_cli() + " verify " + dir.file("run") + " --claims " +
                              dir.file("confirmed.json"));
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("2 of 2 gating claims (device cpu, suite synthetic) confirmed"),
            std::string::npos)
      << ok.output;
  const auto refuted = run_command(speedbench_cli() + " verify " + dir.file("run") + " --claims " +
                                   dir.file("refuted.json"));
  EXPECT_EQ(refuted.exit_code, 1) << refuted.output;
  EXPECT_NE(refuted.output.find("gate failed: fast-is-faster is refuted"), std::string::npos)
      << refuted.output;

  // A claim that gates another suite only: nothing gates these results, and verify says so.
  write_text(dir.file("elsewhere.json"),
             R"({"claims": [{"id": "fast-is-faster", "technique": "fast", "metric": "throughput",
       "direction": ">=", "threshold": 2.0, "gate": true, "gate_suite": "smoke", "source": "t"}]})");
  const auto nothing_gated = run_command(speedbench_cli() + " verify " + dir.file("run") +
                                         " --claims " + dir.file("elsewhere.json"));
  EXPECT_EQ(nothing_gated.exit_code, 0) << nothing_gated.output;
  EXPECT_NE(nothing_gated.output.find("no claim gates these results (device cpu, suite synthetic): "
                                      "verify checked nothing"),
            std::string::npos)
      << nothing_gated.output;

  const auto report = run_command(speedbench_cli() + " report " + dir.file("run") + " --claims " +
                                  dir.file("refuted.json"));
  EXPECT_EQ(report.exit_code, 0) << report.output;
  EXPECT_TRUE(std::filesystem::file_size(dir.file("run/report.md")) > 0);
  EXPECT_TRUE(std::filesystem::file_size(dir.file("run/summary.json")) > 0);
  const auto missing = run_command(speedbench_cli() + " report " + dir.file("nothing"));
  expect_bad_input(missing, "no such file or folder");
}

// The default claims registry is read from the working folder; report goes on without it (a
// note, no verdicts), verify cannot; a --claims file that is not there is bad input, and the
// report it would have replaced stays as it was.
TEST(CliTest, ReportGoesOnWithoutTheDefaultClaimsVerifyStopsAndAMissingClaimsFileIsAnError) {
  TempDir dir;
  speedbench::testing::write_synthetic_results(dir.file("run/runs.jsonl"));
  const auto in_dir = "cd " + dir.path().string() + " && " + speedbench_cli();
  const auto without = run_command(in_dir + " report run");
  ASSERT_EQ(without.exit_code, 0) << without.output;
  const auto where = "no claims file at suites/claims.json under " +
                     std::filesystem::canonical(dir.path()).string() +
                     " (run from the clone's root, or name one with --claims FILE)";
  EXPECT_NE(without.output.find("note: " + where + "; the report has no verdicts"),
            std::string::npos)
      << without.output;
  expect_bad_input(run_command(in_dir + " verify run"), "field '--claims': " + where);
  const auto report_before = read_text(dir.file("run/report.md"));
  ASSERT_FALSE(report_before.empty());

  const auto typo = run_command(in_dir + " report run --claims suites/claim.json");
  expect_bad_input(typo, "suites/claim.json: cannot open the file for reading");
  EXPECT_EQ(read_text(dir.file("run/report.md")), report_before);

  // From a folder that has suites/claims.json, that registry is the default for both commands.
  std::filesystem::create_directories(dir.file("suites"));
  write_text(dir.file("suites/claims.json"), R"({"claims": [
      {"id": "fast-is-faster", "technique": "fast", "metric": "throughput", "direction": ">=",
       "threshold": 1.3, "gate": true, "source": "test"}]})");
  for (const auto* command : {" report run", " verify run"}) {
    const auto with = run_command(in_dir + command);
    EXPECT_EQ(with.exit_code, 0) << command << with.output;
    EXPECT_EQ(with.output.find("note: no claims file"), std::string::npos) << with.output;
  }
  EXPECT_NE(read_text(dir.file("run/report.md")).find("fast-is-faster"), std::string::npos);
}

// A report that cannot be written (a full disk: its .partial is /dev/full here) is an error,
// not a "report: PATH" line over a missing or truncated file.
TEST(CliTest, AReportThatCannotBeWrittenFailsAndLeavesNoReport) {
  TempDir dir;
  speedbench::testing::write_synthetic_results(dir.file("run/runs.jsonl"));
  std::filesystem::create_symlink("/dev/full", dir.file("run/report.md.partial"));
  const auto result = run_command(speedbench_cli() + " report " + dir.file("run") + " --claims " +
                                  testing::empty_claims_file(dir));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("speedbench: error: " + dir.file("run/report.md") +
                               ": could not be written"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find("report: "), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("run/report.md")));
}

// The curve goes into a folder that lr-find makes, once the sweep is done (checked before it).
TEST(CliTest, LrFindWritesItsCurveIntoAFolderItMakes) {
  TempDir dir;
  write_text(dir.file("c.json"), kTinyConfig);
  const auto result = run_command(speedbench_cli() + " lr-find --config " + dir.file("c.json") +
                                  " --steps 5 --out " + dir.file("new/folder/curve.json"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(read_text(dir.file("new/folder/curve.json")).find("\"suggested_lr\""),
            std::string::npos);
}

// ---- a second build (`run --against`): a test suite, and a ctest entry, of its own ----------

// A stand-in for a second build: `speedbench` itself behind a script that, before each run,
// logs the run's index and how many runs this binary had recorded by then (not for the check of
// its `run-one --help` before the suite starts).
std::string write_logging_binary(const TempDir& dir) {
  const auto path = dir.file("other-build");
  write_executable(path,
                   "#!/bin/sh\n"
                   "if [ \"$1\" = run-one ] && [ \"$2\" != --help ]; then\n"
                   "  previous=; for arg in \"$@\"; do\n"
                   "    case \"$previous\" in --records) records=$arg;; --run-index) index=$arg;; "
                   "esac; previous=$arg\n"
                   "  done\n"
                   "  this=\"$(dirname \"$(dirname \"$records\")\")/runs.jsonl\"\n"
                   "  echo \"$index $(cat \"$this\" 2>/dev/null | wc -l)\" >> " +
                       dir.file("order.log") +
                       "\n"
                       "fi\n"
                       "exec " +
                       speedbench_cli() + " \"$@\"\n");
  return path;
}

// `run --against`: every planned run made by both binaries back to back, this one first in even
// repetitions and the other first in odd ones, into two folders that compare pairs run by run;
// a time budget and --resume work across both, and --resume refuses another second build.
TEST(CliSecondBuildTest, ASuiteRunAgainstItAlternatesThemRunByRunIntoTwoFolders) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(2));
  const auto other = write_logging_binary(dir);
  const auto run = run_suite_command(dir) + " --against " + other;
  const auto budgeted = run_command(run + " --time-budget 0.001");
  ASSERT_EQ(budgeted.exit_code, 0) << budgeted.output;
  EXPECT_NE(budgeted.output.find("against binary: speedbench "), std::string::npos)
      << budgeted.output;
  EXPECT_NE(budgeted.output.find("the next run, tiny / sgd (rep 0, against), was expected to "
                                 "take"),
            std::string::npos)
      << budgeted.output;
  EXPECT_NE(budgeted.output.find("7 of 8 planned runs not started"), std::string::npos)
      << budgeted.output;

  // The same version line, other bytes (a rebuild of a dirty tree, say): not the build it started.
  const auto script = read_text(other);
  write_text(other, script + "# rebuilt\n");
  const auto rebuilt = run_command(run + " --resume");
  expect_bad_input(rebuilt, "field 'against': the run folder's --against runs were made by " +
                                other + " (speedbench ");
  EXPECT_NE(
      rebuilt.output.find("is " + other + ", the same --version line but other bytes (crc32 "),
      std::string::npos)
      << rebuilt.output;
  EXPECT_NE(rebuilt.output.find("resume with those, or run without --resume"), std::string::npos)
      << rebuilt.output;
  write_text(other, script);

  const auto resumed = run_command(run + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming: 1 runs already recorded"), std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("[5/8] tiny / sgd (rep 1, against)"), std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("[6/8] tiny / sgd (rep 1)"), std::string::npos) << resumed.output;
  // Run index, and this binary's records when the other started it: this one went first in
  // repetition 0 (runs 0, 1), the other first in repetition 1 (runs 2, 3).
  EXPECT_EQ(read_text(dir.file("order.log")), "0 1\n1 2\n2 2\n3 3\n");

  const auto folder = only_run_folder(dir.file("results/mini"));
  const auto against = folder / "against";
  EXPECT_EQ(read_text((folder / "plan.json").string()),
            read_text((against / "plan.json").string()));
  const auto these = read_records((folder / "runs.jsonl").string());
  const auto others = read_records((against / "runs.jsonl").string());
  ASSERT_EQ(these.size(), 4u);
  ASSERT_EQ(others.size(), 4u);
  for (const auto* records : {&these, &others}) {
    for (size_t k = 0; k < records->size(); ++k) {
      EXPECT_EQ((*records)[k].run_index, static_cast<int64_t>(k));
      EXPECT_EQ((*records)[k].run_id, folder.filename().string());
      EXPECT_EQ((*records)[k].status, RunStatus::kOk) << (*records)[k].message;
    }
  }
  EXPECT_NE(resumed.output.find("compare: speedbench compare " + folder.string() + "\n"),
            std::string::npos)
      << resumed.output;
  // One folder of a run --against: its against/ before, itself after.
  const auto compared = run_command(speedbench_cli() + " compare " + folder.string());
  ASSERT_EQ(compared.exit_code, 0) << compared.output;
  EXPECT_NE(compared.output.find("before: " + against.string() + " (suite mini"), std::string::npos)
      << compared.output;
  EXPECT_NE(compared.output.find("2 of 2 variants paired run by run"), std::string::npos)
      << compared.output;
  EXPECT_EQ(
      run_command(speedbench_cli() + " compare " + against.string() + " " + folder.string()).output,
      compared.output);

  // Its folder is not resumed without --against (this binary's half alone would look complete).
  const auto alone = run_command(run_suite_command(dir) + " --resume");
  expect_bad_input(alone, "has it but was run with --against: resume it with --against");
}

// The second build fails every run: its runs are recorded as crashed, with its error line and
// whose it was, this build's runs are unaffected, and the suite fails.
TEST(CliSecondBuildTest, OneThatFailsItsRunsIsRecordedAsCrashedAndFailsTheSuite) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  const auto other = dir.file("failing-build");
  write_executable(other, "#!/bin/sh\n{ [ \"$1\" = --version ] || [ \"$2\" = --help ]; } && exec " +
                              speedbench_cli() +
                              " \"$@\"\n"
                              "echo 'speedbench: error: this build cannot run it' >&2; exit 2\n");
  const auto result = run_command(run_suite_command(dir) + " --against " + other);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("2 ok, 0 diverged/oom, 0 not applicable, 2 crashed"),
            std::string::npos)
      << result.output;
  const auto folder = only_run_folder(dir.file("results/mini"));
  for (const auto& r : read_records((folder / "runs.jsonl").string()))
    EXPECT_EQ(r.status, RunStatus::kOk) << r.message;
  const auto failed = read_records((folder / "against/runs.jsonl").string());
  ASSERT_EQ(failed.size(), 2u);
  for (const auto& r : failed) {
    EXPECT_EQ(r.status, RunStatus::kCrashed);
    // The runner wrote it: the machine's facts, the other build (which wrote no record of its
    // own) by its --version line only.
    EXPECT_TRUE(r.environment.contains("host")) << r.environment.dump();
    EXPECT_FALSE(r.environment.contains("git_commit")) << r.environment.dump();
    EXPECT_FALSE(r.environment.contains("libtorch_version")) << r.environment.dump();
    EXPECT_EQ(r.environment.value("build_version_line", "").rfind("speedbench ", 0), 0u)
        << r.environment.dump();
    EXPECT_NE(r.message.find("--against "), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("failing-build: run process exited with code 2: this build cannot "
                             "run it"),
              std::string::npos)
        << r.message;
  }
  // Such records measured nothing: compare names no machine or build keys they lack.
  const auto compared = run_command(speedbench_cli() + " compare " + (folder / "against").string() +
                                    " " + folder.string());
  EXPECT_EQ(compared.exit_code, 0) << compared.output;
  EXPECT_NE(compared.output.find("not_compared: before: crashed (--against "), std::string::npos)
      << compared.output;
  EXPECT_EQ(compared.output.find("only the after records name"), std::string::npos)
      << compared.output;
}

// The options a --against build is checked for up front are the ones the runner then passes:
// the runner's every `run-one` option is in kRunOneOptionsTheRunnerPasses, and with --data-root
// it passes them all.
TEST(CliSecondBuildTest, ItIsCheckedForEveryRunOneOptionTheRunnerPasses) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  const auto other = dir.file("logging-build");
  write_executable(other, "#!/bin/sh\necho \"$@\" >> " + dir.file("calls") + "\nexec " +
                              speedbench_cli() + " \"$@\"\n");
  const auto result = run_command(run_suite_command(dir) + " --against " + other + " --data-root " +
                                  data::dataset_folder(DataConfig{}));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::set<std::string> passed;
  int runs = 0;
  std::istringstream calls(read_text(dir.file("calls")));
  for (std::string call; std::getline(calls, call);) {
    if (call.rfind("run-one --config ", 0) != 0) continue;  // --version, run-one --help
    runs += 1;
    std::istringstream words(call);
    for (std::string word; words >> word;)
      if (word.rfind("--", 0) == 0) passed.insert(word);
  }
  EXPECT_EQ(runs, 2);
  const std::set<std::string> checked(kRunOneOptionsTheRunnerPasses.begin(),
                                      kRunOneOptionsTheRunnerPasses.end());
  EXPECT_EQ(passed, checked);
}

// The second build dies in one run after writing another: the record the runner writes for it
// takes that build's facts from its own record (the same binary here, so this checks the wiring;
// EnvironmentIdentityTest checks what is taken).
TEST(CliSecondBuildTest, ItsDeadRunIsRecordedWithTheBuildItsOwnRecordNames) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  const auto other = dir.file("dying-build");
  write_executable(other, "#!/bin/sh\nSPEEDBENCH_INJECT_FAULT=1:segfault exec " + speedbench_cli() +
                              " \"$@\"\n");
  const auto result = run_command(run_suite_command(dir) + " --against " + other);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const auto records =
      read_records((only_run_folder(dir.file("results/mini")) / "against/runs.jsonl").string());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].status, RunStatus::kOk);
  EXPECT_FALSE(records[0].environment.contains("build_version_line"));
  EXPECT_EQ(records[1].status, RunStatus::kCrashed);
  EXPECT_NE(records[1].message.find("signal"), std::string::npos) << records[1].message;
  for (const auto* key : {"git_commit", "build_type", "libtorch_version", "compiler"}) {
    EXPECT_EQ(records[1].environment.value(key, nlohmann::json()),
              records[0].environment.value(key, nlohmann::json()))
        << key;
  }
  EXPECT_EQ(records[1].environment.value("build_version_line", "").rfind("speedbench ", 0), 0u);
}

// compare's gate: exit 1 when a variant is slower beyond the tolerance, 0 otherwise; the
// markdown and JSON forms are written where asked.
TEST(CliTest, CompareGatesOnARegressedVariantAndWritesItsForms) {
  TempDir dir;
  speedbench::testing::write_synthetic_results(dir.file("before/runs.jsonl"));
  const double fast[] = {140, 145, 150, 155, 160};
  for (int rep = 0; rep < 5; ++rep) {  // the baseline at 60% of its speed, "fast" as before
    append_record(dir.file("after/runs.jsonl"),
                  speedbench::testing::synthetic_record("w", "baseline", rep, 60, 1000));
    append_record(dir.file("after/runs.jsonl"),
                  speedbench::testing::synthetic_record("w", "fast", rep, fast[rep], 500));
  }
  const std::string compare =
      speedbench_cli() + " compare " + dir.file("before") + " " + dir.file("after");
  const auto plain = run_command(compare);
  EXPECT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("0.6x [0.6, 0.6]"), std::string::npos) << plain.output;
  EXPECT_NE(plain.output.find("1 regressed"), std::string::npos) << plain.output;

  // The forms go into a folder that compare makes.
  const auto gated = run_command(compare + " --gate --markdown " + dir.file("forms/c.md") +
                                 " --json " + dir.file("forms/c.json"));
  EXPECT_EQ(gated.exit_code, 1) << gated.output;
  EXPECT_NE(gated.output.find("gate failed: 1 variant(s) regressed by more than 5% in throughput, "
                              "0 failed"),
            std::string::npos)
      << gated.output;
  EXPECT_NE(read_text(dir.file("forms/c.md")).find("**regressed**"), std::string::npos);
  EXPECT_NE(read_text(dir.file("forms/c.json")).find("\"verdict\": \"regressed\""),
            std::string::npos);
  // A form that cannot be written whole (a full disk) fails, and the one there stays as it was.
  std::filesystem::create_symlink("/dev/full", dir.file("forms/c.md.partial"));
  const auto full = run_command(compare + " --markdown " + dir.file("forms/c.md"));
  EXPECT_EQ(full.exit_code, 1) << full.output;
  EXPECT_NE(full.output.find(dir.file("forms/c.md") + ": could not be written"), std::string::npos)
      << full.output;
  EXPECT_NE(read_text(dir.file("forms/c.md")).find("**regressed**"), std::string::npos);

  // A folder against itself: nothing regressed, the gate passes; a wider tolerance is accepted.
  const auto same = run_command(speedbench_cli() + " compare " + dir.file("before") + " " +
                                dir.file("before/runs.jsonl") + " --gate --tolerance 0.2");
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find("0 regressed"), std::string::npos) << same.output;
  // A variant that trained before and crashes after fails the gate too.
  for (int rep = 0; rep < 5; ++rep) {
    auto crashed = speedbench::testing::synthetic_record("w", "fast", rep, 0, 0);
    crashed.status = RunStatus::kCrashed;
    crashed.message = "killed by SIGSEGV";
    append_record(dir.file("broken/runs.jsonl"),
                  speedbench::testing::synthetic_record("w", "baseline", rep, 100, 1000));
    append_record(dir.file("broken/runs.jsonl"), crashed);
  }
  const auto broken = run_command(speedbench_cli() + " compare " + dir.file("before") + " " +
                                  dir.file("broken") + " --gate");
  EXPECT_EQ(broken.exit_code, 1) << broken.output;
  EXPECT_NE(broken.output.find("0 variant(s) regressed by more than 5% in throughput, 1 failed"),
            std::string::npos)
      << broken.output;
  // Memory instead of time: "fast" kept its bytes.
  const auto memory = run_command(compare + " --metric peak_bytes --gate");
  EXPECT_EQ(memory.exit_code, 0) << memory.output;
}

}  // namespace
}  // namespace speedbench
