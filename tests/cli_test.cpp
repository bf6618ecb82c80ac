// End-to-end tests of the speedbench binary: its commands one at a time (list, --version,
// run-one, report, verify, lr-find, compare): exit codes, messages, and the files they write.
// A suite run is in cli_suite_test.cpp, a run against a second build in cli_against_test.cpp.
#include <gtest/gtest.h>

#include <torch/version.h>

#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "harness/measure/usable_cpu_cores.h"
#include "harness/results/environment.h"
#include "harness/results/records_file.h"
#include "tests/cli_fixtures.h"

namespace speedbench {
namespace {

using testing::expect_bad_input;
using testing::kTinyConfig;
using testing::read_text;
using testing::run_command;
using testing::speedbench_cli;
using testing::TempDir;
using testing::write_text;

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

TEST(CliTest, ARunWithMoreThreadsThanCoresIsWarnedOfAndFlaggedInItsSummaryAndTheReport) {
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
  // Its summary says what the report will flag (other flags may come first: its threads waited).
  const auto health = result.output.find("\n  measurement health: ");
  ASSERT_NE(health, std::string::npos) << result.output;
  EXPECT_NE(result.output.find("oversubscribed: " + oversubscribed, health), std::string::npos)
      << result.output;
  // So does the one line a suite prints under a run's progress line.
  const auto brief = run_command(speedbench_cli() + " run-one --brief --quiet --config " +
                                 dir.file("busy.json") + " --records " + dir.file("brief.jsonl"));
  ASSERT_EQ(brief.exit_code, 0) << brief.output;
  const auto flagged = brief.output.find("  ok: ");
  ASSERT_NE(flagged, std::string::npos) << brief.output;
  EXPECT_NE(brief.output.find("; flagged: ", flagged), std::string::npos) << brief.output;
  EXPECT_NE(brief.output.find("oversubscribed: " + oversubscribed, flagged), std::string::npos)
      << brief.output;
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
