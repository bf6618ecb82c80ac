// Folding Google Benchmark JSON into a report: families, medians of repetitions, skipped cases,
// speedups against the family's first variant, and a clear error for a file of another kind.
#include <gtest/gtest.h>

#include <string>

#include "harness/config/config_error.h"
#include "harness/report/micro_benchmarks.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

TEST(MicroBenchmarksTest, ReadsFamiliesVariantsAndSpeedups) {
  testing::TempDir dir;
  testing::write_text(dir.file("micro.json"), R"({"context": {}, "benchmarks": [
    {"name": "optimizer_step/adamw_loop/8", "run_name": "optimizer_step/adamw_loop/8", "run_type": "iteration",
     "real_time": 1364.0, "time_unit": "us", "items_per_second": 5.7e7},
    {"name": "optimizer_step/adamw_fused/8", "run_name": "optimizer_step/adamw_fused/8", "run_type": "iteration",
     "real_time": 202.0, "time_unit": "us", "items_per_second": 3.9e8},
    {"name": "host_to_device/pinned/1/real_time", "run_type": "iteration", "error_occurred": true,
     "error_message": "needs a CUDA device"}]})");
  const auto benchmarks = read_micro_benchmarks(dir.file("micro.json"));
  ASSERT_EQ(benchmarks.size(), 3u);
  EXPECT_EQ(benchmarks[1].family, "optimizer_step");
  EXPECT_EQ(benchmarks[1].variant, "adamw_fused");
  EXPECT_EQ(benchmarks[1].argument, "8");
  EXPECT_EQ(benchmarks[2].error, "needs a CUDA device");
  const auto markdown = micro_benchmark_markdown(benchmarks, "micro.json");
  EXPECT_NE(markdown.find("| 8 | adamw_fused | 202 us | 3.9e+08 items/s | 6.75x |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("skipped: needs a CUDA device"), std::string::npos) << markdown;
}

TEST(MicroBenchmarksTest, UsesMediansWhenRepeated) {
  testing::TempDir dir;
  testing::write_text(dir.file("micro.json"), R"({"benchmarks": [
    {"name": "f/a/1", "run_name": "f/a/1", "run_type": "iteration", "real_time": 9.0, "time_unit": "ns"},
    {"name": "f/a/1_mean", "run_name": "f/a/1", "run_type": "aggregate", "aggregate_name": "mean", "real_time": 7.0, "time_unit": "ns"},
    {"name": "f/a/1_median", "run_name": "f/a/1", "run_type": "aggregate", "aggregate_name": "median", "real_time": 6.0, "time_unit": "ns"}]})");
  const auto benchmarks = read_micro_benchmarks(dir.file("micro.json"));
  ASSERT_EQ(benchmarks.size(), 1u);
  EXPECT_EQ(benchmarks[0].real_time, 6.0);
}

TEST(MicroBenchmarksTest, AnotherKindOfFileIsAClearError) {
  testing::TempDir dir;
  testing::write_text(dir.file("runs.json"), R"({"records": []})");
  try {
    read_micro_benchmarks(dir.file("runs.json"));
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("field 'benchmarks': expected Google Benchmark JSON"),
              std::string::npos)
        << error.what();
  }
}

// An entry that is no object, or a field of another type than Google Benchmark writes, is a
// clear error naming the file, not a JSON library's message.
TEST(MicroBenchmarksTest, AnEntryOfAnotherShapeIsAClearError) {
  testing::TempDir dir;
  for (const auto* benchmarks : {R"([3])", R"([{"name": "f/a", "run_type": 1, "real_time": 1}])",
                                 R"([{"name": "f/a", "run_name": 7, "real_time": 1}])"}) {
    testing::write_text(dir.file("micro.json"),
                        std::string(R"({"benchmarks": )") + benchmarks + "}");
    try {
      read_micro_benchmarks(dir.file("micro.json"));
      ADD_FAILURE() << "no error for " << benchmarks;
    } catch (const ConfigError& error) {
      const std::string what = error.what();
      EXPECT_NE(what.find("micro.json"), std::string::npos) << what;
      EXPECT_NE(what.find("an entry is not as Google Benchmark writes it"), std::string::npos)
          << what;
    }
  }
}

}  // namespace
}  // namespace speedbench::report
