// `speedbench compare` pairs runs across two folders where they pair: the two builds' runs of one
// planned run of a `run --against` (the machine's drift drops out of each ratio), and an effect's
// change by repetition; the effect changes' p-values are adjusted together.
#include <gtest/gtest.h>

#include <sstream>

#include "harness/measure/statistics.h"
#include "harness/report/report_text.h"
#include "harness/report/run_folder_comparison.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

using speedbench::testing::synthetic_folder;
using speedbench::testing::synthetic_runs;

// `run --against` writes each planned run twice, once per binary, with one run id and the same run
// index: compare pairs them, so that what a pair shares (the machine's state while both ran)
// drops out. Here the machine's speed drifts 5x over the repetitions and the after build is
// exactly 10% slower in every pair: paired, that is a 0.9x [0.9, 0.9] regression; the same numbers
// from two separate runs (other run ids) leave the drift in the interval.
TEST(FolderComparisonTest, RunsOfOnePlannedRunArePairedAndTheMachinesDriftDropsOut) {
  const std::vector<double> drifting = {100, 200, 300, 400, 500};
  auto before_runs = synthetic_runs("baseline", drifting);
  auto after_runs = synthetic_runs("baseline", {90, 180, 270, 360, 450});
  for (size_t k = 0; k < drifting.size(); ++k) {
    for (auto* r : {&before_runs[k], &after_runs[k]}) {
      r->run_id = "20261203-120000-1";
      r->run_index = static_cast<int64_t>(2 * k);
    }
  }
  const auto& throughput = *find_metric("throughput");
  const auto paired = compare_folders(synthetic_folder("before", {before_runs}),
                                      synthetic_folder("after", {after_runs}), throughput, 0.05);
  const auto& change = paired.variants.at(0).change;
  EXPECT_TRUE(change.paired());
  EXPECT_NEAR(change.interval.estimate, 0.9, 1e-12);
  EXPECT_NEAR(change.interval.low, 0.9, 1e-12);
  EXPECT_NEAR(change.interval.high, 0.9, 1e-12);
  EXPECT_EQ(paired.variants[0].verdict, "regressed");
  EXPECT_EQ(folder_comparison_json(paired)["variants"][0]["paired"], true);
  EXPECT_NE(
      folder_comparison_markdown(paired).find("paired: geometric mean of 5 back-to-back pairs"),
      std::string::npos);
  EXPECT_NE(folder_comparison_console(paired).find("1 of 1 variants paired run by run"),
            std::string::npos);
  // The t interval keeps its coverage with few pairs: no warning that it undercovers.
  EXPECT_EQ(folder_comparison_console(paired).find("intervals undercover"), std::string::npos);

  // Two separate runs: no partners, the ratio of medians over all the drift.
  for (auto& r : after_runs) r.run_id = "20261203-130000-2";
  const auto separate = compare_folders(synthetic_folder("before", {before_runs}),
                                        synthetic_folder("after", {after_runs}), throughput, 0.05);
  EXPECT_FALSE(separate.variants[0].change.paired());
  EXPECT_NEAR(separate.variants[0].change.interval.estimate, 0.9, 1e-12);
  EXPECT_LT(separate.variants[0].change.interval.low, 0.5);
  EXPECT_EQ(separate.variants[0].verdict, "inconclusive");
  EXPECT_EQ(folder_comparison_console(separate).find("paired run by run"), std::string::npos);

  // A run without its partner (crashed on one side): no pairing, rather than a partial one.
  for (auto& r : after_runs) r.run_id = before_runs[0].run_id;
  after_runs[4].status = RunStatus::kCrashed;
  const auto partial = compare_folders(synthetic_folder("before", {before_runs}),
                                       synthetic_folder("after", {after_runs}), throughput, 0.05);
  EXPECT_FALSE(partial.variants[0].change.paired());
  EXPECT_EQ(partial.variants[0].change.n_variant, 4);
  EXPECT_NE(folder_comparison_console(partial).find("intervals undercover"), std::string::npos);
}

// In one `run --against`, the four runs of a repetition (each build's baseline and variant) are
// made in one sweep of the plan: the change of an effect pairs by repetition. Here the machine
// drifts 5x over the repetitions and the after build's "fast" variant gains 20% more over its
// baseline in every repetition: 1.2x [1.2, 1.2], improved. Two separate runs pair each effect
// within its folder (the drift drops out there too); resampling the four samples apart, where
// a folder's runs do not pair, leaves the drift in the interval.
TEST(FolderComparisonTest, AnEffectsChangeIsPairedByRepetitionWithinOneRunAgainstOrEachFolder) {
  const std::vector<double> drifting = {100, 200, 300, 400, 500};
  std::vector<double> before_fast, after_baseline, after_fast;
  for (double speed : drifting) {
    before_fast.push_back(1.5 * speed);
    after_baseline.push_back(0.9 * speed);
    after_fast.push_back(0.9 * speed * 1.5 * 1.2);
  }
  std::vector<std::vector<Record>> before = {synthetic_runs("baseline", drifting),
                                             synthetic_runs("fast", before_fast)};
  std::vector<std::vector<Record>> after = {synthetic_runs("baseline", after_baseline),
                                            synthetic_runs("fast", after_fast)};
  auto number = [](std::vector<std::vector<Record>>& variants, const std::string& run_id) {
    for (size_t v = 0; v < variants.size(); ++v) {
      for (size_t k = 0; k < variants[v].size(); ++k) {
        variants[v][k].run_id = run_id;
        variants[v][k].run_index = static_cast<int64_t>(2 * k + v);  // the plan's order
      }
    }
  };
  number(before, "20261203-120000-1");
  number(after, "20261203-120000-1");
  const auto& throughput = *find_metric("throughput");
  const auto paired = compare_folders(synthetic_folder("before", before),
                                      synthetic_folder("after", after), throughput, 0.05);
  ASSERT_EQ(paired.effects.size(), 1u);
  const auto& effect = paired.effects[0];
  EXPECT_TRUE(effect.paired);
  EXPECT_NEAR(effect.change.estimate, 1.2, 1e-12);
  EXPECT_NEAR(effect.change.low, 1.2, 1e-12);
  EXPECT_NEAR(effect.change.high, 1.2, 1e-12);
  EXPECT_EQ(effect.verdict, "improved");
  EXPECT_TRUE(effect.has_p_value);
  EXPECT_EQ(effect.p_value, 0);  // the same change in every repetition
  EXPECT_EQ(folder_comparison_json(paired)["effects"][0]["paired"], true);
  EXPECT_EQ(folder_comparison_json(paired)["effects"][0]["p_value"], 0);
  EXPECT_NE(folder_comparison_markdown(paired).find("| improved | paired by repetition |"),
            std::string::npos);
  EXPECT_NE(folder_comparison_console(paired).find("1 of 1 effect changes paired by repetition"),
            std::string::npos);

  number(after, "20261203-130000-2");  // two separate runs
  const auto separate = compare_folders(synthetic_folder("before", before),
                                        synthetic_folder("after", after), throughput, 0.05);
  const auto& apart = separate.effects[0];
  EXPECT_FALSE(apart.paired);
  EXPECT_TRUE(apart.within_folder_pairs);
  EXPECT_TRUE(apart.before.t_interval);
  EXPECT_NEAR(apart.before.interval.estimate, 1.5, 1e-12);  // as the before folder's report
  EXPECT_NEAR(apart.change.estimate, 1.2, 1e-12);
  EXPECT_NEAR(apart.change.low, 1.2, 1e-12);
  EXPECT_NEAR(apart.change.high, 1.2, 1e-12);
  EXPECT_EQ(apart.verdict, "improved");
  EXPECT_TRUE(apart.has_p_value);  // Welch's test of the two folders' mean log ratios
  EXPECT_EQ(apart.p_value, 0);     // no spread on either side
  EXPECT_NE(folder_comparison_markdown(separate).find("| improved | paired within each folder"),
            std::string::npos);

  for (auto& r : after[1]) r.seed += 10;  // after's runs pair with none of its baseline's
  const auto unpaired = compare_folders(synthetic_folder("before", before),
                                        synthetic_folder("after", after), throughput, 0.05);
  EXPECT_FALSE(unpaired.effects[0].paired);
  EXPECT_FALSE(unpaired.effects[0].within_folder_pairs);
  EXPECT_NEAR(unpaired.effects[0].change.estimate, 1.2, 1e-12);
  EXPECT_LT(unpaired.effects[0].change.low, 1.0);
  EXPECT_EQ(unpaired.effects[0].verdict, "inconclusive");
  EXPECT_FALSE(unpaired.effects[0].has_p_value);  // a resampled interval has no test beside it
  EXPECT_FALSE(folder_comparison_json(unpaired)["effects"][0].contains("p_value"));
  EXPECT_NE(folder_comparison_markdown(unpaired).find("| - | - | inconclusive |"),
            std::string::npos);
}

// The effect changes of a comparison are one family, as its variants are: their p-values are
// adjusted together. Three techniques in two folders (whose synthetic runs share a run id, so
// their changes pair by repetition): one whose effect grew, two that held (their ratios vary
// from repetition to repetition).
TEST(FolderComparisonTest, TheEffectChangesPValuesAreAdjustedTogether) {
  const std::vector<double> base = {100, 101, 99, 102, 98};
  auto scaled = [&](const std::vector<double>& factors) {
    std::vector<double> values;
    for (size_t k = 0; k < base.size(); ++k) values.push_back(base[k] * factors[k]);
    return values;
  };
  const auto before =
      synthetic_folder("before", {synthetic_runs("baseline", base),
                                  synthetic_runs("a", scaled({1.5, 1.52, 1.47, 1.51, 1.49})),
                                  synthetic_runs("b", scaled({1.1, 1.0, 1.05, 1.08, 0.98})),
                                  synthetic_runs("c", scaled({0.9, 0.95, 0.92, 0.88, 0.93}))});
  const auto after =
      synthetic_folder("after", {synthetic_runs("baseline", base),
                                 synthetic_runs("a", scaled({1.8, 1.83, 1.79, 1.85, 1.81})),
                                 synthetic_runs("b", scaled({1.02, 1.09, 1.0, 1.06, 1.04})),
                                 synthetic_runs("c", scaled({0.94, 0.9, 0.89, 0.93, 0.91}))});
  const auto c = compare_folders(before, after, *find_metric("throughput"), 0.05);
  ASSERT_EQ(c.effects.size(), 3u);
  std::vector<double> p_values, q_values;
  for (const auto& e : c.effects) {
    EXPECT_TRUE(e.paired);
    EXPECT_TRUE(e.has_p_value);
    p_values.push_back(e.p_value);
    q_values.push_back(e.q_value);
  }
  EXPECT_LT(p_values[0], 1e-4);  // a: 1.5x became 1.8x
  EXPECT_GT(p_values[1], 0.05);
  EXPECT_GT(p_values[2], 0.05);
  EXPECT_EQ(q_values, measure::benjamini_hochberg(p_values));
  EXPECT_GT(q_values[0], p_values[0]);
  EXPECT_DOUBLE_EQ(folder_comparison_json(c)["effects"][0]["q_value"].get<double>(), q_values[0]);
  EXPECT_NE(folder_comparison_markdown(c).find("| change [95% CI] | p | q | verdict | notes |"),
            std::string::npos);
  // The console shows q, the value to read across a table's rows, beside each interval.
  const auto console = folder_comparison_console(c);
  std::istringstream lines(console.substr(console.find("workload  technique")));
  std::string header, first_effect;
  std::getline(lines, header);
  std::getline(lines, first_effect);
  const auto q_column = header.find("  q  ");
  ASSERT_NE(q_column, std::string::npos) << console;
  std::istringstream cells(first_effect.substr(q_column));
  std::string q_cell;
  cells >> q_cell;
  EXPECT_EQ(q_cell, format_number("%.2g", q_values[0])) << console;
}
}  // namespace
}  // namespace speedbench::report
