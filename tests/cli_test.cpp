// End-to-end tests of the speedbench binary: exit codes, messages, and the files it writes.
#include <gtest/gtest.h>

#include "harness/results/records_file.h"
#include "tests/test_support.h"

namespace speedbench {
namespace {

using testing::run_command;
using testing::TempDir;
using testing::write_text;

std::string speedbench_cli() { return SPEEDBENCH_EXECUTABLE; }

const char* kTinyConfig = R"({
  "data": {"train_samples": 256, "test_samples": 128},
  "model": {"widths": [8, 16, 32]},
  "batch_size": 64, "warmup_steps": 1, "progress_every_s": 0
})";

TEST(CliTest, ListShowsEveryTechnique) {
  const auto result = run_command(speedbench_cli() + " list");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  for (const auto* id : {"lr_schedule", "amp", "cudnn_benchmark", "ddp", "input_norm",
                         "channels_last", "tf32", "cuda_graphs"}) {
    EXPECT_NE(result.output.find(id), std::string::npos) << id;
  }
}

TEST(CliTest, RunOneWritesARecordAndASummary) {
  TempDir dir;
  write_text(dir.file("tiny.json"), kTinyConfig);
  const auto records = dir.file("runs.jsonl");
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("tiny.json") +
                                  " --records " + records);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("fashion_mnist/resnet / baseline: ok"), std::string::npos) << result.output;
  const auto written = read_records(records);
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].metrics.steps, 4);
  EXPECT_EQ(written[0].config["batch_size"], 64);
}

TEST(CliTest, BadConfigExitsWithCode2AndWritesNothing) {
  TempDir dir;
  write_text(dir.file("bad.json"), R"({"batch_size": -3})");
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("bad.json") +
                                  " --out " + dir.file("results"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find(dir.file("bad.json") + ": field 'batch_size': got -3"),
            std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

TEST(CliTest, MissingDatasetIsBadInput) {
  TempDir dir;
  write_text(dir.file("tiny.json"), kTinyConfig);
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("tiny.json") +
                                  " --data-root " + dir.file("nowhere") + " --out " + dir.file("results"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("cannot open the IDX file"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

TEST(CliTest, BatchLargerThanTheDataIsBadInput) {
  TempDir dir;
  write_text(dir.file("big.json"), R"({"data": {"train_samples": 100}, "batch_size": 128})");
  const auto result = run_command(speedbench_cli() + " run-one --config " + dir.file("big.json") +
                                  " --out " + dir.file("results"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("field 'batch_size': got 128, more than the 100 training examples"),
            std::string::npos) << result.output;
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
  if (written[0].environment["cuda_available"].get<bool>()) GTEST_SKIP() << "this machine has a GPU";
  EXPECT_EQ(written[0].status, RunStatus::kNotApplicable);
  EXPECT_NE(written[0].message.find("no CUDA device"), std::string::npos);
}

TEST(CliTest, SuiteRunsEachEntryInItsOwnProcessAndRecordsAll) {
  TempDir dir;
  write_text(dir.file("suite.json"), std::string(R"({
    "name": "mini", "repetitions": 2,
    "base": )") + kTinyConfig + R"(,
    "runs": [{"variant": "sgd"}, {"variant": "adam", "config": {"optimizer": {"name": "adam", "lr": 0.001}}}]
  })");
  const auto result = run_command(speedbench_cli() + " run --suite " + dir.file("suite.json") +
                                  " --out " + dir.file("results"));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("[4/4] adam (rep 1)"), std::string::npos) << result.output;
  const auto folder = std::filesystem::directory_iterator(dir.file("results/mini"))->path();
  const auto records = read_records((folder / "runs.jsonl").string());
  ASSERT_EQ(records.size(), 4u);
  // Interleaved: A B A B, and each repetition has its own seed.
  EXPECT_EQ(records[0].variant, "sgd");
  EXPECT_EQ(records[1].variant, "adam");
  EXPECT_EQ(records[1].config["optimizer"]["name"], "adam");
  EXPECT_EQ(records[2].repetition, 1);
  EXPECT_EQ(records[2].seed, records[0].seed + 1);
}

TEST(CliTest, SuiteWithABadRunIsRejectedBeforeAnythingRuns) {
  TempDir dir;
  write_text(dir.file("suite.json"), R"({
    "name": "bad", "base": {},
    "runs": [{"variant": "ok"}, {"variant": "broken", "config": {"optimizer": {"lr": "fast"}}}]
  })");
  const auto result = run_command(speedbench_cli() + " run --suite " + dir.file("suite.json") +
                                  " --out " + dir.file("results"));
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("runs[1] (variant broken) optimizer.lr"), std::string::npos)
      << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir.file("results")));
}

}  // namespace
}  // namespace speedbench
