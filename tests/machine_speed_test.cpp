// The machine's speed as the runs timed it at start-up (their fp32 matmul peaks): `compare` sets
// two folders' side by side and against the variants' own change, leaving out runs not ok and
// runs with TF32, and says when the peaks cannot be compared; the report gives one folder's spread.
// And how busy other processes kept the machine while the runs trained, in both folders.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "harness/report/machine_speed.h"
#include "harness/report/report_writer.h"
#include "harness/report/run_folder_comparison.h"
#include "harness/report/run_health.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

using speedbench::testing::synthetic_folder;

// Repetition k of `variant` at `samples_per_s`, its start-up fp32 peak `peaks_gflops[k]` GFLOP/s
// from n x n products (no peak: an old record, from before the probe).
std::vector<Record> runs(const std::string& variant, double samples_per_s,
                         const std::vector<double>& peaks_gflops, int64_t n = 512) {
  std::vector<Record> records;
  for (size_t k = 0; k < peaks_gflops.size(); ++k) {
    auto record =
        testing::synthetic_record("w", variant, static_cast<int64_t>(k), samples_per_s, 1000);
    if (peaks_gflops[k] > 0) {
      record.metrics.matmul_peak_size = n;
      record.metrics.matmul_peak_flops = {{"fp32", peaks_gflops[k] * 1e9}};
    }
    records.push_back(record);
  }
  return records;
}

TEST(MachineSpeedTest, ThePeaksOfEachFoldersOkRunsWithoutTf32AreComparedAndSetAgainstTheVariants) {
  // After: a machine 1.5x as fast, and the variants 2x as fast.
  auto before_fast = runs("fast", 200, {100, 100, 100, 100, 100});
  auto crashed = runs("fast", 0, {999})[0];  // a peak, then a crash: not a measurement to keep
  crashed.status = RunStatus::kCrashed;
  before_fast.push_back(crashed);
  auto after_tf32 = runs("tf32", 500, {900, 900, 900, 900, 900});  // TF32 tensor cores' rate
  for (auto& r : after_tf32) r.config["techniques"] = {{"tf32", true}};
  const auto before = synthetic_folder("before", {runs("baseline", 100, {100, 100, 100, 100, 100}),
                                                  before_fast, runs("tf32", 250, {100, 100, 100})});
  const auto after =
      synthetic_folder("after", {runs("baseline", 200, {150, 150, 150, 150, 150}),
                                 runs("fast", 400, {150, 150, 150, 150, 150}), after_tf32});
  const auto c = compare_folders(before, after, *find_metric("throughput"), 0.05);
  const auto& speed = c.machine_speed;
  ASSERT_TRUE(speed.peak.defined) << speed.reason;
  EXPECT_EQ(speed.matrix_size, 512);
  EXPECT_EQ(speed.peak.n_baseline, 13);  // 5 + 5 + 3 ok runs, the crashed one left out
  EXPECT_EQ(speed.peak.n_variant, 10);   // the TF32 runs left out
  EXPECT_DOUBLE_EQ(speed.peak.baseline_median, 100e9);
  EXPECT_DOUBLE_EQ(speed.peak.interval.estimate, 1.5);

  const auto console = folder_comparison_console(c);
  EXPECT_NE(console.find("machine speed: fp32 matmul peak at each run's start (512 x 512): 100 "
                         "GFLOP/s before, 150 GFLOP/s after (medians of 13 and 10 runs), 1.5x "
                         "[1.5, 1.5]; the variants' throughput after / before: median 2x\n"),
            std::string::npos)
      << console;
  EXPECT_NE(folder_comparison_markdown(c).find("## Machine speed"), std::string::npos);
  const auto json = folder_comparison_json(c)["machine_speed"];
  EXPECT_EQ(json["matrix_size"], 512);
  EXPECT_EQ(json["n_before"], 13);
  EXPECT_DOUBLE_EQ(json["change"]["estimate"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(json["after_median_flops_per_s"].get<double>(), 150e9);
}

TEST(MachineSpeedTest, TheOtherLoadOfEachFoldersOkRunsIsSetSideBySide) {
  const auto old = synthetic_folder("old", {runs("baseline", 100, {100, 100, 100})});
  auto measured = runs("baseline", 100, {100, 100, 100, 100});
  const double busy_cores[] = {0.0, 0.1, 0.2, 3.0};
  for (size_t k = 0; k < measured.size(); ++k)
    measured[k].metrics.other_processes_busy_cores = busy_cores[k];
  measured[1].metrics.stolen_cores = 0.5;  // run 0 is from a build that counted steal as busy
  measured[2].metrics.stolen_cores = 1.0;
  measured[2].metrics.cpu_wait_threads = 0.5;
  measured[2].metrics.quota_throttled_share = 0.75;  // the others ran without a quota
  measured[3].status = RunStatus::kCrashed;          // its measure is left out with it
  const auto current = synthetic_folder("current", {measured});
  const auto c = compare_folders(old, current, *find_metric("throughput"), 0.05);
  EXPECT_TRUE(c.contention_before.busy_cores.empty());
  EXPECT_EQ(c.contention_after.busy_cores, (std::vector<double>{0.0, 0.1, 0.2}));
  EXPECT_EQ(c.contention_after.stolen_cores, (std::vector<double>{0.5, 1.0}));
  const auto console = folder_comparison_console(c);
  const std::string line =
      "other processes' load while the runs trained: before not measured (by builds before "
      "2026-12-06); after median 0.10 cores, 90th percentile 0.18, most 0.20, over 3 runs\n";
  EXPECT_NE(console.find(line), std::string::npos) << console;
  const std::string steal_line =
      "the hypervisor's steal while the runs trained: before not measured apart (by builds "
      "before 2026-12-07); after median 0.75 cores, 90th percentile 0.95, most 1.00, over 2 "
      "runs\n";
  EXPECT_NE(console.find(steal_line), std::string::npos) << console;
  EXPECT_NE(console.find("the runs' threads waiting for a CPU: before not measured (by builds "
                         "before 2026-12-07); after median 0.50 threads, 90th percentile 0.50, "
                         "most 0.50, over 1 run\n"),
            std::string::npos)
      << console;
  const auto markdown = folder_comparison_markdown(c);
  EXPECT_NE(markdown.find("Other processes' load while the runs trained"), std::string::npos);
  EXPECT_NE(markdown.find("The hypervisor's steal while the runs trained"), std::string::npos);
  EXPECT_NE(markdown.find("The runs' threads that waited for a CPU while they trained"),
            std::string::npos);
  const auto json = folder_comparison_json(c)["other_load"];
  EXPECT_TRUE(json["before"].is_null());
  EXPECT_EQ(json["after"]["runs"], 3);
  EXPECT_DOUBLE_EQ(json["after"]["median_busy_cores"].get<double>(), 0.1);
  EXPECT_DOUBLE_EQ(json["after"]["max_busy_cores"].get<double>(), 0.2);
  EXPECT_EQ(json["after"]["stolen"]["runs"], 2);
  EXPECT_DOUBLE_EQ(json["after"]["stolen"]["max_cores"].get<double>(), 1.0);
  const auto cpu_wait = folder_comparison_json(c)["cpu_wait"];
  EXPECT_TRUE(cpu_wait["before"].is_null());
  EXPECT_DOUBLE_EQ(cpu_wait["after"]["median_threads"].get<double>(), 0.5);
  EXPECT_NE(console.find("the runs' CPU quota throttling them: before no CPU quota (or builds "
                         "before 2026-12-07); after median 0.75 of the quota's periods, 90th "
                         "percentile 0.75, most 0.75, over 1 run\n"),
            std::string::npos)
      << console;
  EXPECT_NE(markdown.find("The share of the runs' cgroup CPU quota periods in which the quota "
                          "ran out and stopped them"),
            std::string::npos);
  const auto throttling = folder_comparison_json(c)["quota_throttling"];
  EXPECT_TRUE(throttling["before"].is_null());
  EXPECT_DOUBLE_EQ(throttling["after"]["max_share"].get<double>(), 0.75);
  // Where neither folder measured it, nothing is said.
  const auto neither = compare_folders(old, old, *find_metric("throughput"), 0.05);
  EXPECT_EQ(folder_comparison_console(neither).find("other processes' load"), std::string::npos);
  EXPECT_EQ(folder_comparison_console(neither).find("steal"), std::string::npos);
  EXPECT_EQ(folder_comparison_console(neither).find("waiting for a CPU"), std::string::npos);
  EXPECT_EQ(folder_comparison_console(neither).find("quota"), std::string::npos);
  EXPECT_TRUE(folder_comparison_json(neither)["other_load"]["after"].is_null());
}

// A CI job comparing two builds sees whether one folder's runs were flagged (a loaded machine)
// without opening each folder's report.
TEST(MachineSpeedTest, EachFoldersFlaggedRunsAreCountedByKindSideBySide) {
  const auto quiet = synthetic_folder("quiet", {runs("baseline", 100, {100, 100, 100})});
  auto loaded = runs("baseline", 100, {100, 100, 100});
  loaded[0].metrics.cpu_wait_threads = 0.9;
  loaded[1].metrics.cpu_wait_threads = 0.6;
  loaded[1].metrics.stolen_cores = 0.5;
  loaded[2].metrics.cpu_wait_threads = 0.1;  // below 0.25: not flagged
  const auto c = compare_folders(quiet, synthetic_folder("loaded", {loaded}),
                                 *find_metric("throughput"), 0.05);
  const std::string counts =
      "before none of 3 runs flagged; after 2 of 3 runs flagged (waited for a CPU: 2, hypervisor "
      "steal: 1)";
  const auto console = folder_comparison_console(c);
  EXPECT_NE(console.find("measurement health: " + counts + "\n"), std::string::npos) << console;
  const auto markdown = folder_comparison_markdown(c);
  EXPECT_NE(markdown.find(
                "Measurement health (which runs and why: each folder's report): " + counts + "."),
            std::string::npos)
      << markdown;
  const auto json = folder_comparison_json(c)["measurement_health"];
  EXPECT_EQ(json["before"],
            (nlohmann::json{
                {"flagged_runs", 0}, {"records", 3}, {"runs_per_kind", nlohmann::json::object()}}));
  EXPECT_EQ(json["after"]["flagged_runs"], 2);
  EXPECT_EQ(json["after"]["runs_per_kind"],
            (nlohmann::json{{"waited for a CPU", 2}, {"hypervisor steal", 1}}));
}

TEST(MachineSpeedTest, PeaksOfOldRecordsOrOfOtherProductsAreNotComparedAndItSaysWhy) {
  const auto current = synthetic_folder("current", {runs("baseline", 100, {100, 100, 100})});
  const auto old = synthetic_folder("old", {runs("baseline", 100, {0, 0, 0})});
  const auto no_peak = compare_machine_speed(old, current);
  EXPECT_FALSE(no_peak.peak.defined);
  EXPECT_EQ(no_peak.reason, "before: no ok run without TF32 measured an fp32 matmul peak");
  EXPECT_EQ(compare_machine_speed(old, old).reason,
            "before: no ok run without TF32 measured an fp32 matmul peak; after: no ok run "
            "without TF32 measured an fp32 matmul peak");

  // A GPU's 8192 x 8192 product against a CPU's 512 x 512: rates of different work.
  const auto gpu = synthetic_folder("gpu", {runs("baseline", 100, {50000, 50000}, 8192)});
  const auto other_product = compare_machine_speed(current, gpu);
  EXPECT_FALSE(other_product.peak.defined);
  EXPECT_EQ(other_product.reason,
            "the runs timed different products: 512 x 512 before, 8192 x 8192 after");
  EXPECT_NE(
      folder_comparison_console(compare_folders(current, gpu, *find_metric("throughput"), 0.05))
          .find("machine speed: not compared (the runs timed different products"),
      std::string::npos);
}

TEST(MachineSpeedTest, TheReportGivesTheSpreadOfTheMachinesSpeedOverItsRuns) {
  const auto results = synthetic_folder(
      "run", {runs("baseline", 100, {100, 200, 300}), runs("fast", 150, {400, 500, 0})});
  const ReportInputs inputs{results, compare(results), {}, {}};
  const auto markdown = markdown_report(inputs);
  // The five runs with a peak: 100..500 GFLOP/s, numpy's percentiles 140 and 460.
  EXPECT_NE(markdown.find("the fp32 matmul peak each run timed at its start (512 x 512, the "
                          "product MFU divides by) had a median of 300 GFLOP/s, 10th to 90th "
                          "percentile 140 GFLOP/s to 460 GFLOP/s, CV 53% over 5 runs"),
            std::string::npos)
      << markdown;
  // Records with one probe say nothing of the peak within the runs.
  EXPECT_EQ(markdown.find("Within the runs"), std::string::npos) << markdown;
  // Records from before the probe: nothing to say.
  const auto old = synthetic_folder("old", {runs("baseline", 100, {0, 0}), runs("fast", 150, {0})});
  EXPECT_EQ(markdown_report({old, compare(old), {}, {}}).find("the fp32 matmul peak"),
            std::string::npos);
}

// Since 2026-12-07 a run times its peak at its end too, and divides its MFU by the faster. The
// machine's speed from run to run stays the start's (the one probe older folders have, so that
// `compare` sets like against like); the report adds how the peak moved within the runs.
TEST(MachineSpeedTest, RunsThatTimedTheirPeakTwiceAreComparedByTheStartsAndTheirDriftIsGiven) {
  auto baseline = runs("baseline", 100, {100, 100, 100, 100});
  const std::vector<double> at_end = {102, 98, 100, 200};  // the last run's start lost a core
  for (size_t k = 0; k < baseline.size(); ++k) {
    auto& m = baseline[k].metrics;
    m.matmul_peak_flops_at_start = m.matmul_peak_flops;
    m.matmul_peak_flops_at_end = {{"fp32", at_end[k] * 1e9}};
    m.matmul_peak_flops = {{"fp32", std::max(100.0, at_end[k]) * 1e9}};
  }
  const auto results = synthetic_folder("run", {baseline});
  EXPECT_EQ(fp32_matmul_peaks(results).flops_per_s, (std::vector<double>(4, 100e9)));
  std::vector<double> end_over_start;
  std::vector<bool> moved;
  for (const auto& record : results.records) {
    const auto probes = matmul_peak_probes(record);
    ASSERT_TRUE(probes.has_value());
    EXPECT_EQ(probes->dtype, "fp32");
    end_over_start.push_back(probes->end_over_start());
    moved.push_back(probes->moved());
  }
  EXPECT_EQ(end_over_start, (std::vector<double>{1.02, 0.98, 1.0, 2.0}));
  EXPECT_EQ(moved, (std::vector<bool>{false, false, false, true}));
  // One probe: nothing to set against the other.
  auto one_probe = baseline[0];
  one_probe.metrics.matmul_peak_flops_at_end.clear();
  EXPECT_FALSE(matmul_peak_probes(one_probe).has_value());
  const auto markdown = markdown_report({results, compare(results), {}, {}});
  // numpy's percentiles of 0.98, 1, 1.02, 2: 0.986 and 1.706.
  EXPECT_NE(markdown.find(" Within the runs, the peak each timed again at its end was 1.010x its "
                          "start's (median; 10th to 90th percentile 0.986x to 1.71x, over 4 runs; "
                          "1 more than 1.25x apart, flagged \"peak moved\")."),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| w | baseline | 3 | peak moved: fp32 matmul 100 GFLOP/s at its start, "
                          "200 GFLOP/s at its end |"),
            std::string::npos)
      << markdown;
}

// A GPU's peaks, tens to hundreds of TFLOP/s, read in TFLOP/s.
TEST(MachineSpeedTest, AGpusPeaksReadInTflops) {
  const auto gpu = synthetic_folder("gpu", {runs("baseline", 100, {51000, 52000, 53000}, 8192)});
  const auto markdown = markdown_report({gpu, compare(gpu), {}, {}});
  EXPECT_NE(markdown.find("(8192 x 8192, the product MFU divides by) had a median of 52 TFLOP/s, "
                          "10th to 90th percentile 51.2 TFLOP/s to 52.8 TFLOP/s"),
            std::string::npos)
      << markdown;
}

}  // namespace
}  // namespace speedbench::report
