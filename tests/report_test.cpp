// Reports on synthetic records: the comparison numbers, what the markdown, JSON and console forms
// carry, and the report's notes (health, mixed builds, nothing to compare). The claims' verdicts
// are in claims_test.cpp.
#include <gtest/gtest.h>

#include "harness/report/claims.h"
#include "harness/report/report_text.h"
#include "harness/report/report_writer.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

using speedbench::testing::synthetic_claim;
using speedbench::testing::synthetic_record;
using speedbench::testing::TempDir;
using speedbench::testing::write_synthetic_results;
using speedbench::testing::write_text;

TEST(ReportTest, ComparesVariantWithBaselineWithIntervals) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));
  const auto results = load_results(dir.path().string());
  EXPECT_EQ(results.device, "cpu");
  const auto comparisons = compare(results);  // no plan.json: every variant against "baseline"
  ASSERT_EQ(comparisons.size(), 1u);
  const auto& c = comparisons[0];
  EXPECT_EQ(c.status, "ok");
  EXPECT_EQ(c.baseline_ok, 5);
  const auto* throughput = c.metric("throughput");
  ASSERT_NE(throughput, nullptr);
  EXPECT_TRUE(throughput->defined);
  EXPECT_EQ(throughput->n_variant, 5);
  // Paired by seed: the geometric mean of the ratios 1.4, 1.45, ..., 1.6 with the t interval of
  // their logs (mean -+ 2.776 stddev / sqrt(5); numpy), and that t test's p (t = 17.1, 4 df).
  EXPECT_TRUE(throughput->paired());
  EXPECT_EQ(throughput->pairs, 5);
  EXPECT_TRUE(throughput->t_interval);
  EXPECT_NEAR(throughput->interval.estimate, 1.49833111, 1e-8);
  EXPECT_NEAR(throughput->interval.low, 1.40328380, 1e-8);
  EXPECT_NEAR(throughput->interval.high, 1.59981617, 1e-8);
  EXPECT_GT(throughput->p_value, 0);
  EXPECT_LT(throughput->p_value, 1e-4);  // the U test's floor with 5 vs 5 is 0.0079
  const auto* memory = c.metric("peak_bytes");
  EXPECT_DOUBLE_EQ(memory->interval.low, 0.5);
  EXPECT_DOUBLE_EQ(memory->interval.high, 0.5);
  const auto* accuracy = c.metric("accuracy");
  EXPECT_DOUBLE_EQ(accuracy->interval.estimate, 0.0);  // a difference, not a ratio
  EXPECT_TRUE(accuracy->paired());                     // each repetition has its seed
  EXPECT_FALSE(c.metric("time_to_target")->defined);   // no run had a target
  EXPECT_TRUE(c.metric("time_to_target")->note.empty());
}

TEST(ReportTest, NotApplicableAndFailedRunsAreNotCompared) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  auto base = speedbench::testing::synthetic_record("w", "baseline", 0, 100, 1000);
  auto na = speedbench::testing::synthetic_record("w", "tf32", 0, 0, 0);
  na.status = RunStatus::kNotApplicable;
  na.message = "tf32 applies only on cuda";
  auto diverged = speedbench::testing::synthetic_record("w", "hot", 0, 0, 0);
  diverged.status = RunStatus::kDiverged;
  diverged.message = "loss became nan at step 3";
  for (const auto& r : {base, na, diverged}) append_record(path, r);
  const auto comparisons = compare(load_results(path));
  ASSERT_EQ(comparisons.size(), 2u);
  EXPECT_EQ(comparisons[0].status, "not_applicable");
  EXPECT_EQ(comparisons[0].reason, "tf32 applies only on cuda");
  EXPECT_EQ(comparisons[1].status, "failed");
  EXPECT_NE(comparisons[1].reason.find("diverged"), std::string::npos);
}

TEST(ReportTest, AccuracyDeltasArePairedBySeedAndUnpairedWhenFewerThanTwoRunsPair) {
  // Seeds 0-2 reach very different accuracies; the variant changes none of them, then adds 0.01.
  const double by_seed[] = {0.5, 0.2, 0.8};
  enum class Variant { kAllSeeds, kMissesSeed2, kOtherSeeds };
  auto write = [&](const std::string& path, double added, Variant runs) {
    for (int rep = 0; rep < 3; ++rep) {
      auto baseline = synthetic_record("w", "baseline", rep, 100, 1000);
      auto variant = synthetic_record("w", "fast", rep, 100, 1000);
      baseline.metrics.final_test_accuracy = by_seed[rep];
      variant.metrics.final_test_accuracy = by_seed[rep] + added;
      if (rep == 2 && runs == Variant::kMissesSeed2) variant.status = RunStatus::kCrashed;
      if (runs == Variant::kOtherSeeds) variant.seed = 10 + rep;
      append_record(path, baseline);
      append_record(path, variant);
    }
  };
  for (const auto runs : {Variant::kAllSeeds, Variant::kMissesSeed2}) {
    for (const double added : {0.0, 0.01}) {
      TempDir dir;
      write(dir.file("runs.jsonl"), added, runs);
      const auto comparisons = compare(load_results(dir.path().string()));
      const auto* accuracy = comparisons[0].metric("accuracy");
      EXPECT_TRUE(accuracy->paired());
      EXPECT_EQ(accuracy->pairs, runs == Variant::kAllSeeds ? 3 : 2);  // seed 2's baseline left out
      EXPECT_NEAR(accuracy->interval.estimate, added, 1e-12);
      EXPECT_NEAR(accuracy->interval.low, added, 1e-12);  // unpaired: about -0.6
      EXPECT_NEAR(accuracy->interval.high, added, 1e-12);
    }
  }
  TempDir dir;
  write(dir.file("runs.jsonl"), 0.0, Variant::kOtherSeeds);
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const auto* accuracy = comparisons[0].metric("accuracy");
  EXPECT_FALSE(accuracy->paired());
  EXPECT_LT(accuracy->interval.low, -0.2);  // the seeds' own spread
  const ReportInputs inputs{results, comparisons, {}, {}};
  EXPECT_NE(markdown_report(inputs).find("(unpaired)"), std::string::npos);
  EXPECT_EQ(summary_json(inputs)["comparisons"][0]["metrics"]["accuracy"]["paired"], false);
}

TEST(ReportTest, MarkdownAndJsonCarryTheNumbersAndN) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const std::vector<Claim> claims = {synthetic_claim("faster", "throughput", ">=", 1.3)};
  const auto verdicts = verify_claims(claims, comparisons, results);
  const ReportInputs inputs{results, comparisons, claims, verdicts};
  const auto markdown = markdown_report(inputs);
  EXPECT_NE(markdown.find("| w | fast | 5/5 | 1.5x [1.4, 1.6]"), std::string::npos) << markdown;
  EXPECT_EQ(markdown.find("Each 95% interval holds"), std::string::npos);  // one ratio alone
  EXPECT_NE(markdown.find("throughput >= 1.3x | confirmed"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("## Environment"), std::string::npos);
  const auto json = summary_json(inputs);
  const auto& metric = json["comparisons"][0]["metrics"]["throughput"];
  EXPECT_NEAR(metric["estimate"].get<double>(), 1.49833111, 1e-8);
  EXPECT_EQ(metric["paired"], true);
  EXPECT_EQ(metric["pairs"], 5);
  EXPECT_EQ(metric["n_baseline"], 5);
  EXPECT_EQ(metric["undercovers"], false);  // 5 runs a side
  EXPECT_EQ(metric["no_interval"], false);
  EXPECT_EQ(json["claims"][0]["verdict"], "confirmed");
  EXPECT_EQ(json["comparisons"][0]["claims"][0]["threshold"], 1.3);
}

// Tip 2's mechanism in the report: the training thread's wait for its batches, per measured
// (post-warmup) step, compared as step time is; a run with no measured step has none. And the
// first (warmup) step, where one-time costs such as cuDNN's autotuning land, and tip 3's
// generalization gap at the last evaluation (test loss - training loss, a difference).
TEST(ReportTest, TheBatchWaitTheFirstStepAndTheGeneralizationGapAreCompared) {
  TempDir dir;
  for (int rep = 0; rep < 5; ++rep) {
    auto baseline = synthetic_record("w", "baseline", rep, 100, 1000);
    auto workers = synthetic_record("w", "loader_workers", rep, 100, 1000);
    baseline.metrics.measured_steps = workers.metrics.measured_steps = 8;
    baseline.metrics.data_wait_ms_total = 4.0;  // 0.5 ms a step
    workers.metrics.data_wait_ms_total = 0.4;   // 0.05 ms a step
    baseline.metrics.warmup_step_ms = {40.0, 10.0};
    workers.metrics.warmup_step_ms = {400.0, 10.0};
    // step, epoch, wall_s, train_loss, test_loss, test_accuracy: gaps 0.25, then 0.75
    baseline.metrics.curve = {{4, 0.5, 1.0, 2.0, 2.0, 0.3}, {8, 1.0, 2.0, 0.5, 0.75, 0.8}};
    workers.metrics.curve = {{8, 1.0, 2.0, 0.25, 1.0, 0.8}};
    append_record(dir.file("runs.jsonl"), baseline);
    append_record(dir.file("runs.jsonl"), workers);
  }
  auto unmeasured = synthetic_record("w", "baseline", 5, 100, 1000);
  unmeasured.metrics.data_wait_ms_total = 3.0;  // during warmup: measured_steps 0
  EXPECT_FALSE(find_metric("data_wait")->value(unmeasured).has_value());
  EXPECT_FALSE(find_metric("first_step")->value(unmeasured).has_value());  // no warmup step kept

  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const auto* wait = comparisons.at(0).metric("data_wait");
  ASSERT_NE(wait, nullptr);
  EXPECT_DOUBLE_EQ(wait->baseline_median, 0.5);
  EXPECT_DOUBLE_EQ(wait->variant_median, 0.05);
  EXPECT_DOUBLE_EQ(wait->interval.estimate, 0.1);
  EXPECT_DOUBLE_EQ(comparisons.at(0).metric("first_step")->interval.estimate, 10.0);
  const auto* gap = comparisons.at(0).metric("generalization_gap");
  EXPECT_DOUBLE_EQ(gap->baseline_median, 0.25);
  EXPECT_DOUBLE_EQ(gap->variant_median, 0.75);
  EXPECT_DOUBLE_EQ(gap->interval.estimate, 0.5);  // variant - baseline
  EXPECT_TRUE(gap->paired());
  const auto markdown = markdown_report({results, comparisons, {}, {}});
  EXPECT_NE(markdown.find("| batch wait per step |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 0.500 |"), std::string::npos) << markdown;  // the variant tables
  EXPECT_NE(markdown.find("| 0.050 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| first step |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 400.0 |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| +0.5000 [+0.5000, +0.5000] |"), std::string::npos) << markdown;
}

// The process's peak RSS, which tensor memory does not show (host_memory_reuse keeps freed
// blocks: the same tensors, a larger process), is compared and shown per variant, and so are
// the page faults per measured step (its mechanism); a record without them has none.
TEST(ReportTest, ThePeakResidentMemoryAndThePageFaultsOfTheProcessAreCompared) {
  TempDir dir;
  constexpr int64_t kMiB = 1 << 20;
  for (int rep = 0; rep < 5; ++rep) {
    auto baseline = synthetic_record("w", "baseline", rep, 100, 1000);
    auto reuse = synthetic_record("w", "host_memory_reuse", rep, 100, 1000);
    baseline.metrics.peak_rss_bytes = 1000 * kMiB;
    reuse.metrics.peak_rss_bytes = 1100 * kMiB;
    baseline.metrics.measured_steps = reuse.metrics.measured_steps = 10;
    baseline.metrics.minor_page_faults = 50000;  // 5000 a step
    reuse.metrics.minor_page_faults = 500;
    append_record(dir.file("runs.jsonl"), baseline);
    append_record(dir.file("runs.jsonl"), reuse);
  }
  const auto unmeasured = synthetic_record("w", "b", 0, 1, 1);
  EXPECT_FALSE(find_metric("peak_rss")->value(unmeasured).has_value());
  EXPECT_FALSE(find_metric("page_faults_per_step")->value(unmeasured).has_value());

  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const auto* rss = comparisons.at(0).metric("peak_rss");
  ASSERT_NE(rss, nullptr);
  EXPECT_NEAR(rss->interval.estimate, 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(comparisons.at(0).metric("peak_bytes")->interval.estimate, 1.0);
  const auto* faults = comparisons.at(0).metric("page_faults_per_step");
  EXPECT_DOUBLE_EQ(faults->baseline_median, 5000);
  EXPECT_NEAR(faults->interval.estimate, 0.01, 1e-12);
  const auto markdown = markdown_report({results, comparisons, {}, {}});
  EXPECT_NE(markdown.find("| peak RSS (process) | page faults per step |"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| 0.01x [0.01, 0.01] |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| 1.1x [1.1, 1.1] |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find(" / 1000.0 |"), std::string::npos) << markdown;  // the variant tables
  EXPECT_NE(markdown.find(" / 1100.0 |"), std::string::npos) << markdown;
}

// A count that is 0 in some baseline run (a step with no page fault) gives no ratio, with why:
// the pairs' logs and a resampled median of 0 have none.
TEST(ReportTest, ACountThatIsZeroInABaselineRunGivesNoRatioAndSaysWhy) {
  TempDir dir;
  for (int rep = 0; rep < 3; ++rep) {
    auto baseline = synthetic_record("w", "baseline", rep, 100, 1000);
    auto reuse = synthetic_record("w", "host_memory_reuse", rep, 100, 1000);
    baseline.metrics.measured_steps = reuse.metrics.measured_steps = 10;
    baseline.metrics.minor_page_faults = rep == 0 ? 0 : 1000;
    reuse.metrics.minor_page_faults = 10;
    append_record(dir.file("runs.jsonl"), baseline);
    append_record(dir.file("runs.jsonl"), reuse);
  }
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const auto* faults = comparisons.at(0).metric("page_faults_per_step");
  EXPECT_FALSE(faults->defined);
  EXPECT_DOUBLE_EQ(faults->baseline_median, 100);
  EXPECT_EQ(faults->note, "a baseline run is 0: no ratio");
}

// A `run --against` folder holds the second build's records in against/: the report of the
// folder says it covers this build only and how to see the other.
TEST(ReportTest, TheReportOfARunAgainstFolderSaysWhereTheSecondBuildIs) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));
  const auto alone = load_results(dir.path().string());
  EXPECT_EQ(alone.second_build_folder, "");
  EXPECT_EQ(markdown_report({alone, compare(alone), {}, {}}).find("--against"), std::string::npos);
  write_synthetic_results(dir.file("against/runs.jsonl"));
  const auto results = load_results(dir.path().string());
  EXPECT_EQ(results.second_build_folder, dir.file("against"));
  const auto markdown = markdown_report({results, compare(results), {}, {}});
  EXPECT_NE(markdown.find("It is a `run --against` folder: this report covers this build's "
                          "records only; the second build's are in `" +
                          dir.file("against") + "`"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("`speedbench compare " + dir.path().string() + "` sets the two builds"),
            std::string::npos)
      << markdown;
}

// Records of run-one alone (no plan.json, every variant "baseline"): the report says why it has
// no comparison and how to get one, instead of empty tables and a list of unrun claims.
TEST(ReportTest, RecordsWithNothingToCompareSayWhyInsteadOfEmptyTables) {
  TempDir dir;
  for (int rep = 0; rep < 2; ++rep)
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "baseline", rep, 100, 1000));
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  ASSERT_TRUE(comparisons.empty());
  const std::vector<Claim> claims = {synthetic_claim("claimed-speedup", "throughput", ">=", 1.3)};
  const ReportInputs inputs{results, comparisons, claims,
                            verify_claims(claims, comparisons, results)};
  const auto markdown = markdown_report(inputs);
  const std::string why =
      "No comparisons: without a plan.json (records of `run-one`, not of a suite run) each "
      "variant is compared with the variant `baseline` of its workload, and these records have "
      "no other variant.";
  EXPECT_NE(markdown.find("## Comparisons\n\n" + why), std::string::npos) << markdown;
  for (const char* empty :
       {"## By technique", "## Summary", "## Claims", "claimed-speedup", "Ratios are"})
    EXPECT_EQ(markdown.find(empty), std::string::npos) << empty;
  EXPECT_NE(markdown.find("| baseline | 2/2 |"), std::string::npos) << markdown;  // Variants
  EXPECT_EQ(console_summary(inputs).rfind(why, 0), 0u) << console_summary(inputs);
}

// A column of 95% intervals: the report says how many would exclude 1x by chance, counting only
// the ratios whose runs vary.
TEST(ReportTest, ManyIntervalsSayHowManyWouldExcludeOneByChance) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));  // fast: varies
  const double slow[] = {60, 62, 64, 66, 68};
  for (int rep = 0; rep < 5; ++rep) {
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "slow", rep, slow[rep], 1000));
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "same", rep, 100, 1000));
  }
  const auto results = load_results(dir.path().string());
  const ReportInputs inputs{results, compare(results), {}, {}};
  const auto markdown = markdown_report(inputs);
  EXPECT_NE(markdown.find("Each 95% interval holds for its own comparison: among these 2 "
                          "throughput ratios, about 0.1 would exclude 1x by chance"),
            std::string::npos)
      << markdown;
}

// Each metric's p-values are adjusted together over the report's comparisons (the Summary's q
// column, summary.json's q_value): a p just under 0.05 among three comparisons is no discovery.
TEST(ReportTest, QValuesAdjustEachMetricOverTheReportsComparisons) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));  // "fast": p < 1e-4
  // Against the baseline's 100 samples/s: "slightly" 1.01x to 1.07x faster (p = 0.035 by itself,
  // the second smallest of three: q = 0.035 * 3 / 2 = 0.053), "same" exactly as fast (p = 1).
  const double slightly[] = {105, 101, 107, 101, 104};
  for (int rep = 0; rep < 5; ++rep) {
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "slightly", rep, slightly[rep], 1));
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "same", rep, 100, 1000));
  }
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  std::vector<double> p_values, q_values;
  for (const auto& c : comparisons) {
    p_values.push_back(c.metric("throughput")->p_value);
    q_values.push_back(c.metric("throughput")->q_value);
  }
  ASSERT_EQ(p_values.size(), 3u);
  EXPECT_EQ(q_values, measure::benjamini_hochberg(p_values));
  const ReportInputs inputs{results, comparisons, {}, {}};
  const auto markdown = markdown_report(inputs);
  EXPECT_NE(markdown.find("| throughput | p | q | CV |"), std::string::npos) << markdown;
  EXPECT_NEAR(q_values[1], p_values[1] * 3 / 2, 1e-12);
  EXPECT_GT(q_values[1], 0.05);
  EXPECT_LT(p_values[1], 0.05);
  EXPECT_NE(markdown.find("p < 0.05: 2 of them; q < 0.05"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("together): 1."), std::string::npos) << markdown;
  EXPECT_EQ(summary_json(inputs)["comparisons"][0]["metrics"]["throughput"]["q_value"],
            q_values[0]);
  // The console's table shows q beside each throughput interval: 0.053, not the p of 0.035 that
  // alone would pass at 5%.
  const auto console = console_summary(inputs);
  const auto label_at = console.find(" " + comparisons[1].comparison.label + " ");
  ASSERT_NE(label_at, std::string::npos) << console;
  const auto row = console.substr(label_at, console.find('\n', label_at) - label_at);
  EXPECT_NE(row.find("  " + probability_text(q_values[1]) + "  "), std::string::npos) << console;
  EXPECT_EQ(probability_text(q_values[1]), "0.053");
}

// One run a side (`--repetitions 1`): the ratio is shown as a number with "no interval", never as
// an exact-looking [x, x], and summary.json marks it as undercovering for the plots.
TEST(ReportTest, OneRunASideShowsNoInterval) {
  TempDir dir;
  append_record(dir.file("runs.jsonl"), synthetic_record("w", "baseline", 0, 100, 1000));
  append_record(dir.file("runs.jsonl"), synthetic_record("w", "fast", 0, 150, 500));
  const auto results = load_results(dir.path().string());
  const ReportInputs inputs{results, compare(results), {}, {}};
  const auto markdown = markdown_report(inputs);
  EXPECT_NE(markdown.find("| w | fast | 1/1 | 1.5x (a side with 1 run: no interval) |"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find("1.5x [1.5, 1.5]"), std::string::npos) << markdown;
  const auto json = summary_json(inputs)["comparisons"][0]["metrics"];
  EXPECT_EQ(json["throughput"]["undercovers"], true);
  EXPECT_EQ(json["throughput"]["no_interval"], true);
  EXPECT_EQ(json["peak_bytes"]["undercovers"], true);  // one run cannot show that bytes repeat
}

TEST(ReportTest, RecordsFromMoreThanOneBuildAreFlaggedWithTheirCounts) {
  TempDir dir;
  write_synthetic_results(dir.file("one/runs.jsonl"));
  const auto one_build = load_results(dir.file("one"));
  const ReportInputs same{one_build, compare(one_build), {}, {}};
  EXPECT_EQ(markdown_report(same).find("more than one machine or build"), std::string::npos);
  EXPECT_EQ(markdown_report(same).find("do not share one machine"), std::string::npos);
  EXPECT_TRUE(summary_json(same)["environment_differences"].empty());

  // Repetitions 3 and 4 resumed after a rebuild: 6 records of commit a, 4 of commit b.
  for (int rep = 0; rep < 5; ++rep) {
    for (const auto* variant : {"baseline", "fast"}) {
      auto record = synthetic_record("w", variant, rep, 100, 1000);
      record.environment["git_commit"] = rep < 3 ? "a" : "b";
      append_record(dir.file("two/runs.jsonl"), record);
    }
  }
  const auto two_builds = load_results(dir.file("two"));
  const ReportInputs mixed{two_builds, compare(two_builds), {}, {}};
  const auto markdown = markdown_report(mixed);
  EXPECT_NE(markdown.find("**The records come from more than one machine or build** (they differ "
                          "in git_commit; see \"Environment\")"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| git_commit | a | 6 |\n| git_commit | b | 4 |"), std::string::npos)
      << markdown;
  const auto json = summary_json(mixed)["environment_differences"];
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["key"], "git_commit");
  EXPECT_EQ(json[0]["records_per_value"], (nlohmann::json{{"a", 6}, {"b", 4}}));
}

// A plan.json's null member reads as absent, as configs' and suites' do: the report shows its
// default rather than ending with a JSON type error (a null description did; found by fuzzing).
TEST(ReportTest, APlansNullMembersReadAsAbsent) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));
  write_text(dir.file("plan.json"),
             R"({"comparisons": [{"workload": "w", "label": "fast", "baseline": "baseline",
                 "variant": "fast"}], "description": null, "design": null, "repetitions": null,
                 "runs": null})");
  const auto results = load_results(dir.path().string());
  EXPECT_FALSE(results.plan.contains("description"));
  const ReportInputs inputs{results, compare(results), {}, {}};
  const auto markdown = markdown_report(inputs);
  EXPECT_EQ(markdown.find("Design"), std::string::npos) << markdown;  // no empty heading line
  EXPECT_NE(markdown.find("10 records (10 ok)"), std::string::npos) << markdown;
  EXPECT_EQ(summary_json(inputs)["design"], "");
  EXPECT_EQ(planned_run_count(results), 0u);
}

// A run's model FLOP rate above the one matmul peak it timed has no MFU (an impossible one would
// read as a measurement); the health section says which runs and why, rather than a bare "-".
TEST(ReportTest, ARunWhoseModelBeatItsMatmulPeakIsFlaggedForItsMissingMfu) {
  TempDir dir;
  std::vector<Record> records;
  for (int rep = 0; rep < 2; ++rep) {
    for (const auto* variant : {"baseline", "amp"}) {
      auto record = synthetic_record("w", variant, rep, 100, 1000);
      record.metrics.train_flops_per_sample = 1e9;  // 100 GFLOP/s at 100 samples/s
      const bool bf16 = std::string(variant) == "amp";
      // The bf16 product ran at 40 GFLOP/s (no native bf16): no MFU. fp32's 400: 25%.
      record.metrics.matmul_peak_flops = {{bf16 ? "bf16" : "fp32", bf16 ? 40e9 : 400e9}};
      record.metrics.mfu = bf16 ? 0.0 : 0.25;
      append_record(dir.file("run/runs.jsonl"), record);
    }
  }
  // A DDP run: 100 samples/s over 2 ranks is 50 GFLOP/s a device, under its 60 GFLOP/s peak, so
  // not flagged (the MFU is per device, as the train loop computes it).
  auto ddp = synthetic_record("w", "ddp", 0, 100, 1000);
  ddp.metrics.train_flops_per_sample = 1e9;
  ddp.metrics.distributed.world_size = 2;
  ddp.metrics.matmul_peak_flops = {{"fp32", 60e9}};
  append_record(dir.file("run/runs.jsonl"), ddp);
  const auto results = load_results(dir.file("run"));
  const auto markdown = markdown_report({results, compare(results), {}, {}});
  EXPECT_NE(markdown.find("2 of 5 runs flagged"), std::string::npos) << markdown;
  const auto console = console_summary({results, compare(results), {}, {}});
  EXPECT_NE(console.find("measurement health: 2 of 5 runs flagged (no MFU: 2):"), std::string::npos)
      << console;
  for (const auto* repetition : {"0", "1"}) {
    EXPECT_NE(markdown.find(std::string("| w | amp | ") + repetition +
                            " | no MFU: model 100 GFLOP/s above the bf16 matmul peak it timed, "
                            "40 GFLOP/s |"),
              std::string::npos)
        << markdown;
  }
  // summary.json lists the same flagged runs for machines.
  const auto flagged = summary_json({results, compare(results), {}, {}})["flagged_runs"];
  ASSERT_EQ(flagged.size(), 2u) << flagged.dump();
  EXPECT_EQ(flagged[1], (nlohmann::json{{"workload", "w"},
                                        {"variant", "amp"},
                                        {"repetition", 1},
                                        {"flags",
                                         {"no MFU: model 100 GFLOP/s above the bf16 matmul peak "
                                          "it timed, 40 GFLOP/s"}},
                                        {"kinds", {"no MFU"}}}));
}

}  // namespace
}  // namespace speedbench::report
