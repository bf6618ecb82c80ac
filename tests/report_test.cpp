// Reports and verdicts on synthetic records: the comparison numbers, each verdict (confirmed,
// refuted, inconclusive, not_run), gating, and the claims file's errors.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include "build_paths.h"
#include "harness/config/config_error.h"
#include "harness/report/claims.h"
#include "harness/report/report_text.h"
#include "harness/report/report_writer.h"
#include "harness/suite/suite.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

using speedbench::testing::synthetic_record;
using speedbench::testing::TempDir;
using speedbench::testing::write_synthetic_results;
using speedbench::testing::write_text;

Claim claim(const std::string& id, const std::string& metric, const std::string& direction,
            double threshold, bool gate = false) {
  Claim c;
  c.id = id;
  c.technique = "fast";
  c.metric = metric;
  c.direction = direction;
  c.threshold = threshold;
  c.gate = gate;
  c.source = "test";
  return c;
}

const ClaimVerdict& verdict_of(const std::vector<ClaimVerdict>& verdicts, const std::string& id) {
  for (const auto& v : verdicts) {
    if (v.claim->id == id) return v;
  }
  throw std::runtime_error("no verdict for " + id);
}

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

TEST(ReportTest, VerdictsFollowTheIntervalAgainstTheThreshold) {
  TempDir dir;
  write_synthetic_results(dir.file("runs.jsonl"));
  const auto results = load_results(dir.file("runs.jsonl"));
  std::vector<Claim> claims = {claim("faster", "throughput", ">=", 1.3),
                               claim("much-faster", "throughput", ">=", 2.0),
                               claim("borderline", "throughput", ">=", 1.5),
                               claim("half-memory", "peak_bytes", "<=", 0.5),
                               claim("less-than-half", "peak_bytes", "<=", 0.4),
                               claim("gpu-only", "throughput", ">=", 1.0, true),
                               claim("absent", "throughput", ">=", 1.0, true),
                               claim("gated-in-smoke", "throughput", ">=", 1.3, true),
                               claim("nearly", "throughput", ">=", 1.45),
                               claim("at-most", "throughput", "<=", 1.45)};
  claims[5].device = "cuda";
  claims[6].technique = "warp_drive";
  claims[7].gate_suite = "smoke";  // these results are suite "synthetic"
  const auto verdicts = verify_claims(claims, compare(results), results);
  EXPECT_EQ(verdict_of(verdicts, "faster").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "faster").reason, "") << "5 runs a side: no caveat";
  EXPECT_EQ(verdict_of(verdicts, "much-faster").verdict, "refuted");
  EXPECT_EQ(verdict_of(verdicts, "borderline").verdict, "inconclusive");
  // An inconclusive verdict says how many repetitions would decide it. 1.498x [1.40, 1.60] from 5
  // pairs: the logs' stddev is 0.0655 (the half-width in logs) * sqrt(5) / 2.776 = 0.0528, and
  // the half-width t(n - 1) * 0.0528 / sqrt(n) drops below log(1.498 / 1.45) = 0.0328 at n = 13
  // (0.0319; 0.0335 at n = 12). Against 1.5 the estimate is too close for 100.
  EXPECT_EQ(verdict_of(verdicts, "borderline").reason,
            "more than 100 repetitions would be needed to decide it if the effect and its spread "
            "are as in these 5 pairs");
  EXPECT_EQ(verdict_of(verdicts, "nearly").verdict, "inconclusive");
  EXPECT_EQ(verdict_of(verdicts, "nearly").reason,
            "about 13 repetitions would confirm it if the effect and its spread are as in these 5 "
            "pairs");
  EXPECT_EQ(verdict_of(verdicts, "at-most").reason,
            "about 13 repetitions would refute it if the effect and its spread are as in these 5 "
            "pairs");
  EXPECT_EQ(verdict_of(verdicts, "half-memory").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "less-than-half").verdict, "refuted");
  const auto& gpu = verdict_of(verdicts, "gpu-only");
  EXPECT_EQ(gpu.verdict, "not_run");
  EXPECT_FALSE(gpu.gates) << "a CUDA claim does not gate CPU results";
  const auto& absent = verdict_of(verdicts, "absent");
  EXPECT_EQ(absent.verdict, "not_run");
  EXPECT_TRUE(absent.gates) << "a gating claim whose comparison is missing fails the gate";
  const auto& elsewhere = verdict_of(verdicts, "gated-in-smoke");
  EXPECT_EQ(elsewhere.verdict, "confirmed") << "judged on any suite's results";
  EXPECT_FALSE(elsewhere.gates) << "but it gates only its gate_suite's";
}

TEST(ReportTest, VerdictForAnInterval) {
  EXPECT_EQ(verdict_for({1.2, 1.1, 1.3}, ">=", 1.05), "confirmed");
  EXPECT_EQ(verdict_for({1.2, 1.1, 1.3}, ">=", 1.4), "refuted");
  EXPECT_EQ(verdict_for({1.2, 1.1, 1.3}, ">=", 1.2), "inconclusive");
  EXPECT_EQ(verdict_for({0.5, 0.45, 0.55}, "<=", 0.6), "confirmed");
  EXPECT_EQ(verdict_for({0.5, 0.45, 0.55}, "<=", 0.4), "refuted");
  EXPECT_EQ(verdict_for({0.5, 0.45, 0.55}, "<=", 0.5), "inconclusive");
}

TEST(ReportTest, AVerdictFromFewerThanFiveVaryingUnpairedRunsASideSaysSo) {
  TempDir dir;
  const double fast[] = {140, 150, 160};
  for (int rep = 0; rep < 3; ++rep) {
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "baseline", rep, 100 + rep, 1000));
    auto variant = synthetic_record("w", "fast", rep, fast[rep], 500);
    variant.seed = 10 + rep;  // pairs with no baseline run: the bootstrap's interval
    append_record(dir.file("runs.jsonl"), variant);
  }
  const auto results = load_results(dir.path().string());
  const std::vector<Claim> claims = {claim("faster", "throughput", ">=", 1.3),
                                     claim("half-memory", "peak_bytes", "<=", 0.5)};
  const auto comparisons = compare(results);
  const auto verdicts = verify_claims(claims, comparisons, results);
  const auto& faster = verdict_of(verdicts, "faster");
  EXPECT_EQ(faster.verdict, "confirmed");  // 140/102 is above 1.3: the verdict stands
  EXPECT_NE(faster.reason.find("only 3/3 runs"), std::string::npos) << faster.reason;
  EXPECT_NE(faster.reason.find("9 times in 10"), std::string::npos) << faster.reason;
  const auto& memory = verdict_of(verdicts, "half-memory");
  EXPECT_EQ(memory.verdict, "confirmed");
  EXPECT_EQ(memory.reason, "") << "every run measured the same bytes: nothing to doubt";
  // summary.json says the same per metric (the plots read it).
  const auto metrics =
      summary_json({results, comparisons, claims, verdicts})["comparisons"][0]["metrics"];
  EXPECT_EQ(metrics["throughput"]["undercovers"], true);
  EXPECT_EQ(metrics["peak_bytes"]["undercovers"], false);
}

// The same runs paired by seed: a t interval keeps its coverage with 3 pairs, so no caveat; it
// is wider than the 3-run bootstrap's (which is about the runs' range) and does not clear 1.3x.
TEST(ReportTest, AVerdictFromThreePairsOfRunsHasNoCaveat) {
  TempDir dir;
  const double fast[] = {140, 150, 160};
  for (int rep = 0; rep < 3; ++rep) {
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "baseline", rep, 100 + rep, 1000));
    append_record(dir.file("runs.jsonl"), synthetic_record("w", "fast", rep, fast[rep], 500));
  }
  const auto results = load_results(dir.path().string());
  const std::vector<Claim> claims = {claim("faster", "throughput", ">=", 1.3),
                                     claim("a-little-faster", "throughput", ">=", 1.2)};
  const auto comparisons = compare(results);
  const auto* throughput = comparisons[0].metric("throughput");
  EXPECT_TRUE(throughput->t_interval);
  // Ratios 1.4, 150/101, 160/102: exp(mean -+ 4.303 stddev / sqrt(3)) of their logs (numpy).
  EXPECT_NEAR(throughput->interval.low, 1.28758604, 1e-8);
  EXPECT_NEAR(throughput->interval.high, 1.70805649, 1e-8);
  const auto verdicts = verify_claims(claims, comparisons, results);
  EXPECT_EQ(verdict_of(verdicts, "faster").verdict, "inconclusive");
  EXPECT_EQ(verdict_of(verdicts, "a-little-faster").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "a-little-faster").reason, "");
  const ReportInputs inputs{results, comparisons, claims, verdicts};
  EXPECT_EQ(summary_json(inputs)["comparisons"][0]["metrics"]["throughput"]["undercovers"], false);
  EXPECT_EQ(markdown_report(inputs).find("Fewer than 5 runs on a side"), std::string::npos);
}

// A claim on "any" workload is judged on each: the worst verdict decides, and among equal
// verdicts the workload whose estimate is least favourable to the claim (not the first in the
// records' order); the note tallies the workloads' verdicts.
TEST(ReportTest, AClaimOnAnyWorkloadIsDecidedByItsLeastFavourableWorkload) {
  const auto write = [](const std::string& path, const std::vector<std::string>& workloads) {
    const std::map<std::string, double> speedup = {{"a", 2.0}, {"b", 1.5}, {"c", 1.0}};
    for (const auto& workload : workloads) {
      for (int rep = 0; rep < 5; ++rep) {
        const double baseline = 100 + rep;
        append_record(path, synthetic_record(workload, "baseline", rep, baseline, 1000));
        append_record(path,
                      synthetic_record(workload, "fast", rep,
                                       baseline * speedup.at(workload) * (1 + 0.01 * rep), 500));
      }
    }
  };
  auto at_least = claim("at-least-1.3x", "throughput", ">=", 1.3);
  auto at_most = claim("at-most-2.5x", "throughput", "<=", 2.5);
  const std::vector<Claim> claims = {at_least, at_most};
  TempDir two;
  write(two.file("runs.jsonl"), {"a", "b"});
  auto results = load_results(two.path().string());
  auto verdicts = verify_claims(claims, compare(results), results);
  EXPECT_EQ(verdict_of(verdicts, "at-least-1.3x").verdict, "confirmed");
  EXPECT_EQ(verdict_of(verdicts, "at-least-1.3x").workload, "b") << "1.5x is nearer 1.3x than 2x";
  EXPECT_EQ(verdict_of(verdicts, "at-least-1.3x").reason,
            "the least favourable of 2 workloads (confirmed on 2)");
  EXPECT_EQ(verdict_of(verdicts, "at-most-2.5x").workload, "a") << "2x is nearer 2.5x than 1.5x";

  TempDir three;
  write(three.file("runs.jsonl"), {"c", "a", "b"});
  results = load_results(three.path().string());
  verdicts = verify_claims(claims, compare(results), results);
  const auto& refuted = verdict_of(verdicts, "at-least-1.3x");
  EXPECT_EQ(refuted.verdict, "refuted");
  EXPECT_EQ(refuted.workload, "c");
  EXPECT_EQ(refuted.reason, "the least favourable of 3 workloads (confirmed on 2, refuted on 1)");
  EXPECT_EQ(verdict_of(verdicts, "at-most-2.5x").workload, "a");
  // The Summary and summary.json show each workload's own verdict.
  const ReportInputs inputs{results, compare(results), claims, verdicts};
  const auto markdown = markdown_report(inputs);
  EXPECT_NE(markdown.find("| c | fast | 5/5 | 1.02x"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("| throughput >= 1.3x; throughput <= 2.5x | refuted; confirmed |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| throughput >= 1.3x; throughput <= 2.5x | confirmed; confirmed |"),
            std::string::npos)
      << markdown;
  const auto json = summary_json(inputs);
  EXPECT_EQ(json["claims"][0]["by_workload"],
            nlohmann::json::parse(R"([{"workload": "c", "verdict": "refuted"},
                                      {"workload": "a", "verdict": "confirmed"},
                                      {"workload": "b", "verdict": "confirmed"}])"));

  auto on_b = at_least;
  on_b.workload = "b";
  verdicts = verify_claims({on_b}, compare(results), results);
  EXPECT_EQ(verdicts[0].workload, "b");
  EXPECT_EQ(verdicts[0].reason, "") << "one workload: nothing to tally";
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
  const std::vector<Claim> claims = {claim("faster", "throughput", ">=", 1.3)};
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
  const std::vector<Claim> claims = {claim("faster", "throughput", ">=", 1.3)};
  const ReportInputs inputs{results, comparisons, claims,
                            verify_claims(claims, comparisons, results)};
  const auto markdown = markdown_report(inputs);
  const std::string why =
      "No comparisons: without a plan.json (records of `run-one`, not of a suite run) each "
      "variant is compared with the variant `baseline` of its workload, and these records have "
      "no other variant.";
  EXPECT_NE(markdown.find("## Comparisons\n\n" + why), std::string::npos) << markdown;
  for (const char* empty : {"## By technique", "## Summary", "## Claims", "faster", "Ratios are"})
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
  EXPECT_NE(console.find("measurement health: 2 of 5 runs flagged"), std::string::npos) << console;
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
                                          "it timed, 40 GFLOP/s"}}}));
}

TEST(ReportTest, ClaimsFileErrorsNameTheClaimAndField) {
  TempDir dir;
  auto error_of = [&](const std::string& text) {
    write_text(dir.file("claims.json"), text);
    try {
      load_claims(dir.file("claims.json"));
    } catch (const ConfigError& error) {
      return std::string(error.what());
    }
    return std::string();
  };
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "speed", "direction": ">=", "threshold": 2, "source": "x"}]})")
          .find("claims[0].metric': got \"speed\", expected one of: throughput"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">", "threshold": 2, "source": "x"}]})")
          .find("claims[0].direction'"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">=", "source": "x"}]})")
          .find("claims[0].threshold': expected a number"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">=", "threshold": 2}]})")
          .find("claims[0].source'"),
      std::string::npos);
  EXPECT_NE(
      error_of(
          R"({"claims": [{"id": "a", "technique": "amp", "metric": "throughput", "direction": ">=", "threshold": 2, "source": "x", "gated": true}]})")
          .find("claims[0].gated': unknown key"),
      std::string::npos);
}

TEST(ReportTest, TheShippedClaimsFileLoads) {
  const auto claims = load_claims(testing::source_dir() + "/suites/claims.json");
  EXPECT_GE(claims.size(), 10u);
  EXPECT_TRUE(std::any_of(claims.begin(), claims.end(), [](const Claim& c) { return c.gate; }));
}

// A claim is judged only where a suite compares its technique on a workload of its name; one
// that no shipped suite makes would stay not_run forever.
TEST(ReportTest, EveryComparisonAShippedClaimNamesIsInAShippedSuite) {
  std::set<std::pair<std::string, std::string>> compared;  // (technique label, workload)
  for (const auto& entry : std::filesystem::directory_iterator(testing::source_dir() + "/suites")) {
    const auto name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name == "claims.json") continue;
    for (const auto& comparison : load_suite(entry.path().string()).comparisons) {
      compared.insert({comparison.label, comparison.workload});
      compared.insert({comparison.label, "any"});
    }
  }
  for (const auto& claim : load_claims(testing::source_dir() + "/suites/claims.json")) {
    EXPECT_EQ(compared.count({claim.technique, claim.workload}), 1u)
        << claim.id << ": no shipped suite compares " << claim.technique << " on "
        << claim.workload;
  }
}

}  // namespace
}  // namespace speedbench::report
