// `speedbench compare` on synthetic run folders: each variant's after / before with its verdict,
// the change of each technique's effect, what cannot be compared and why, and the machine, build
// and config differences it names (pairing runs across folders:
// run_folder_comparison_pairing_test).
#include <gtest/gtest.h>

#include <sstream>

#include "harness/config/config_error.h"
#include "harness/report/report_text.h"
#include "harness/report/run_folder_comparison.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

using speedbench::testing::synthetic_folder;
using speedbench::testing::synthetic_runs;

const VariantChange& variant_of(const FolderComparison& c, const std::string& variant) {
  for (const auto& v : c.variants) {
    if (v.variant == variant) return v;
  }
  throw std::runtime_error("no variant " + variant);
}

TEST(FolderComparisonTest, ASlowerVariantRegressesAnEqualOneIsUnchangedAndEffectsAreCompared) {
  // After: the baseline runs at half the speed, the "fast" variant as before.
  const auto before =
      synthetic_folder("before", {synthetic_runs("baseline", {100, 100, 100, 100, 100}, 1000),
                                  synthetic_runs("fast", {150, 150, 150, 150, 150}, 500)});
  const auto after =
      synthetic_folder("after", {synthetic_runs("baseline", {50, 50, 50, 50, 50}, 1000),
                                 synthetic_runs("fast", {150, 150, 150, 150, 150}, 1000)});
  const auto c = compare_folders(before, after, *find_metric("throughput"), 0.05);
  ASSERT_EQ(c.variants.size(), 2u);
  const auto& baseline = variant_of(c, "baseline");
  EXPECT_EQ(baseline.verdict, "regressed");
  EXPECT_DOUBLE_EQ(baseline.change.interval.estimate, 0.5);
  EXPECT_DOUBLE_EQ(baseline.change.baseline_median, 100);
  EXPECT_DOUBLE_EQ(baseline.change.variant_median, 50);
  EXPECT_EQ(baseline.before_ok, 5);
  EXPECT_EQ(variant_of(c, "fast").verdict, "unchanged");
  EXPECT_EQ(c.count("regressed"), 1);
  // The technique's effect: 1.5x before, 3x after; it doubled.
  ASSERT_EQ(c.effects.size(), 1u);
  const auto& effect = c.effects[0];
  EXPECT_EQ(effect.label, "fast");
  ASSERT_TRUE(effect.defined);
  EXPECT_DOUBLE_EQ(effect.before.interval.estimate, 1.5);
  EXPECT_DOUBLE_EQ(effect.after.interval.estimate, 3.0);
  EXPECT_DOUBLE_EQ(effect.change.estimate, 2.0);
  EXPECT_EQ(effect.verdict, "improved");

  // Memory, where lower is better: "fast" doubled its peak.
  const auto memory = compare_folders(before, after, *find_metric("peak_bytes"), 0.05);
  EXPECT_EQ(variant_of(memory, "fast").verdict, "regressed");
  EXPECT_EQ(variant_of(memory, "baseline").verdict, "unchanged");
  EXPECT_EQ(memory.effects[0].verdict, "regressed");  // its saving (0.5x) is gone (1x)

  const auto json = folder_comparison_json(c);
  EXPECT_EQ(json["variants"][0]["verdict"], "regressed");
  EXPECT_DOUBLE_EQ(json["effects"][0]["change"]["estimate"].get<double>(), 2.0);
  const auto markdown = folder_comparison_markdown(c);
  EXPECT_NE(
      markdown.find("| w | baseline | 5/5 | 100 samples/s | 50 samples/s | 0.5x [0.5, 0.5] |"),
      std::string::npos)
      << markdown;
  EXPECT_NE(folder_comparison_console(c).find("2 variants in both: 0 improved, 1 regressed, 0 "
                                              "failed, 1 unchanged, 0 inconclusive, 0 "
                                              "not_compared"),
            std::string::npos);
}

// The variants' p-values are adjusted together (q): a change of one of three is less surprising
// than the same change alone.
TEST(FolderComparisonTest, TheVariantsPValuesAreAdjustedTogether) {
  const auto before =
      synthetic_folder("before", {synthetic_runs("baseline", {100, 101, 99, 102, 98}),
                                  synthetic_runs("a", {100, 101, 99, 102, 98}),
                                  synthetic_runs("b", {100, 101, 99, 102, 98})});
  const auto after = synthetic_folder("after", {synthetic_runs("baseline", {90, 91, 89, 92, 88}),
                                                synthetic_runs("a", {99, 103, 100, 104, 101}),
                                                synthetic_runs("b", {100, 101, 99, 102, 98})});
  const auto c = compare_folders(before, after, *find_metric("throughput"), 0.05);
  std::vector<double> p_values, q_values;
  for (const auto& v : c.variants) {
    p_values.push_back(v.change.p_value);
    q_values.push_back(v.change.q_value);
  }
  ASSERT_EQ(p_values.size(), 3u);
  EXPECT_EQ(q_values, measure::benjamini_hochberg(p_values));
  EXPECT_GT(q_values[0], p_values[0]);  // the slower baseline's: 3 times its p, the smallest
  EXPECT_DOUBLE_EQ(folder_comparison_json(c)["variants"][0]["q_value"].get<double>(), q_values[0]);
  EXPECT_NE(folder_comparison_markdown(c).find("| after / before [95% CI] | p | q | verdict |"),
            std::string::npos);
}

TEST(FolderComparisonTest, TheVerdictReadsTheIntervalAgainstTheTolerance) {
  auto verdict = [](double low, double high, bool lower_is_better, double tolerance = 0.05,
                    int runs = 5) {
    return change_verdict({(low + high) / 2, low, high}, lower_is_better, tolerance, runs);
  };
  EXPECT_EQ(verdict(0.97, 1.04, false), "unchanged");
  EXPECT_EQ(verdict(0.95, 1.05, true), "unchanged");  // the bounds belong to "unchanged"
  EXPECT_EQ(verdict(0.8, 0.9, false), "regressed");
  EXPECT_EQ(verdict(0.8, 0.9, true), "improved");
  EXPECT_EQ(verdict(1.1, 1.2, false), "improved");
  EXPECT_EQ(verdict(1.1, 1.2, true), "regressed");
  EXPECT_EQ(verdict(0.9, 0.96, false), "inconclusive");  // slower, but maybe within 5%
  EXPECT_EQ(verdict(0.9, 1.1, false), "inconclusive");
  EXPECT_EQ(verdict(0.8, 0.9, false, 0.05, 1), "inconclusive");  // one run on a side
  EXPECT_EQ(verdict(1.0, 1.0, false, 0.0), "unchanged");         // no tolerance: exactly 1
  EXPECT_EQ(verdict(1.0, 1.01, false, 0.0), "inconclusive");
  EXPECT_EQ(verdict(0.97, 0.99, false, 0.0), "regressed");
}

// One run a side (`run --repetitions 1`): a ratio of two single runs, whose [x, x] would read as
// exact. Every form says it has no interval, and the console columns still line up.
TEST(FolderComparisonTest, OneRunASideGivesARatioWithNoInterval) {
  const auto before = synthetic_folder(
      "before", {synthetic_runs("baseline", {100}), synthetic_runs("fast", {150})});
  const auto after =
      synthetic_folder("after", {synthetic_runs("baseline", {50}), synthetic_runs("fast", {150})});
  const auto c = compare_folders(before, after, *find_metric("throughput"), 0.05);
  ASSERT_EQ(c.effects.size(), 1u);
  EXPECT_EQ(c.effects[0].fewest_runs, 1);
  EXPECT_EQ(variant_of(c, "baseline").verdict, "inconclusive");  // 0.5x, but from one run a side
  const auto markdown = folder_comparison_markdown(c);
  EXPECT_NE(markdown.find("| 0.5x (a side with 1 run: no interval) |"), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find(
                "| 1.5x (a side with 1 run: no interval) | 3x (a side with 1 run: no interval) | "
                "2x (a side with 1 run: no interval) |"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(markdown.find("[0.5, 0.5]"), std::string::npos);
  const auto console = folder_comparison_console(c);
  EXPECT_NE(console.find("2x (a side with 1 run: no interval)"), std::string::npos) << console;
  EXPECT_EQ(console.find("[2, 2]"), std::string::npos) << console;
  // The verdict column starts at one place in the header and both rows of the variants table.
  std::istringstream lines(console.substr(console.find("workload  ")));
  std::string header, row;
  std::getline(lines, header);
  const auto verdict_column = header.find("verdict");
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(std::getline(lines, row));
    EXPECT_EQ(row.find("inconclusive"), verdict_column) << console;
  }
  const auto json = folder_comparison_json(c);
  EXPECT_EQ(json["variants"][0]["no_interval"], true);
  EXPECT_EQ(json["effects"][0]["no_interval"], true);

  // Two runs a side: an interval again.
  const auto twice = synthetic_folder(
      "after", {synthetic_runs("baseline", {50, 52}), synthetic_runs("fast", {150, 151})});
  const auto with_two = compare_folders(
      synthetic_folder(
          "before", {synthetic_runs("baseline", {100, 101}), synthetic_runs("fast", {150, 149})}),
      twice, *find_metric("throughput"), 0.05);
  EXPECT_EQ(folder_comparison_json(with_two)["variants"][0]["no_interval"], false);
  EXPECT_EQ(folder_comparison_markdown(with_two).find("no interval"), std::string::npos);
}

TEST(FolderComparisonTest, WhatCannotBeComparedSaysWhy) {
  auto not_applicable = synthetic_runs("gpu_only", {0, 0, 0});
  for (auto& r : not_applicable) {
    r.status = RunStatus::kNotApplicable;
    r.message = "needs cuda";
  }
  auto crashed = synthetic_runs("crashy", {0});
  crashed[0].status = RunStatus::kCrashed;
  crashed[0].message = "killed by SIGSEGV";
  const auto before = synthetic_folder(
      "before", {synthetic_runs("baseline", {100, 100, 100}), not_applicable,
                 synthetic_runs("crashy", {90, 90, 90}), synthetic_runs("gone", {1, 1, 1})});
  const auto after =
      synthetic_folder("after", {synthetic_runs("baseline", {100, 100, 100}), not_applicable,
                                 crashed, synthetic_runs("new", {1, 1, 1})});
  const auto c = compare_folders(before, after, *find_metric("throughput"), 0.05);
  EXPECT_EQ(c.only_before, std::vector<std::string>{"w/gone"});
  EXPECT_EQ(c.only_after, std::vector<std::string>{"w/new"});
  EXPECT_EQ(variant_of(c, "gpu_only").verdict, "not_compared");
  EXPECT_EQ(variant_of(c, "gpu_only").reason, "before and after: not_applicable (needs cuda)");
  EXPECT_EQ(variant_of(c, "crashy").verdict, "failed");  // it trained before
  EXPECT_EQ(variant_of(c, "crashy").reason, "after: crashed (killed by SIGSEGV)");
  EXPECT_EQ(c.count("failed"), 1);
  // The other way round, a crash before is no failure of the after build.
  const auto reversed = compare_folders(after, before, *find_metric("throughput"), 0.05);
  EXPECT_EQ(variant_of(reversed, "crashy").verdict, "not_compared");
  EXPECT_EQ(variant_of(c, "baseline").verdict, "unchanged");
  ASSERT_EQ(c.effects.size(), 2u);  // gpu_only and crashy: the only comparisons in both
  EXPECT_EQ(c.effects[0].label, "gpu_only");
  EXPECT_EQ(c.effects[0].reason,
            "before, gpu_only and after, gpu_only: not_applicable (needs cuda)");
  EXPECT_EQ(c.effects[1].verdict, "not_compared");

  // A metric that some ok runs lack: medians over the others would not be honest.
  auto before_target = synthetic_runs("baseline", {100, 100, 100});
  auto after_target = synthetic_runs("baseline", {100, 100, 100});
  for (auto& r : before_target) r.metrics.time_to_target_s = 10.0;
  after_target[0].metrics.time_to_target_s = 12.0;
  after_target[1].metrics.time_to_target_s = 11.0;
  const auto targets = compare_folders(synthetic_folder("before", {before_target}),
                                       synthetic_folder("after", {after_target}),
                                       *find_metric("time_to_target"), 0.05);
  EXPECT_EQ(targets.variants[0].verdict, "not_compared");
  EXPECT_EQ(targets.variants[0].reason, "after: time_to_target measured in 2 of 3 ok runs");
}

TEST(FolderComparisonTest, NamesTheMachineBuildAndConfigDifferences) {
  auto before_runs = synthetic_runs("baseline", {100, 100});
  auto after_runs = synthetic_runs("baseline", {100, 100});
  for (auto& r : before_runs) {
    r.environment = {{"host", "a"}, {"git_commit", "1234"}};
    r.config["max_steps"] = 20;  // and the default model widths
    r.config["seed"] = r.seed;
  }
  for (auto& r : after_runs) {
    // cpu_isa: a key the earlier records lack is no difference.
    r.environment = {{"host", "b"}, {"git_commit", "1234"}, {"cpu_isa", {{"avx2", true}}}};
    r.config["max_steps"] = 40;
    r.config["model"] = {{"widths", {8, 16, 32}}};
    r.config["seed"] = r.seed + 100;
    // A field the before records' version did not have, at its default: no difference.
    r.config["data"] = {{"on_device", false}};
  }
  const auto c =
      compare_folders(synthetic_folder("before", {before_runs}),
                      synthetic_folder("after", {after_runs}), *find_metric("throughput"), 0.05);
  ASSERT_EQ(c.identity_differences.size(), 1u);
  EXPECT_EQ(c.identity_differences[0].key, "host");
  EXPECT_EQ(c.identity_differences[0].before, std::vector<std::string>{"a"});
  EXPECT_EQ(c.identity_differences[0].after, std::vector<std::string>{"b"});
  EXPECT_TRUE(c.identity_keys_only_before.empty());
  EXPECT_EQ(c.identity_keys_only_after, std::vector<std::string>{"cpu_isa"});
  EXPECT_NE(folder_comparison_console(c).find("only the after records name cpu_isa (the before "
                                              "ones predate them)"),
            std::string::npos);
  EXPECT_EQ(c.variants[0].config_differences,
            (std::vector<std::string>{"max_steps", "model.widths"}));
  EXPECT_NE(folder_comparison_markdown(c).find("configs differ in max_steps, model.widths"),
            std::string::npos);
}

TEST(FolderComparisonTest, FoldersWithNothingInCommonAreBadInput) {
  const auto before = synthetic_folder("before", {synthetic_runs("baseline", {100})});
  auto other = synthetic_runs("baseline", {100});
  for (auto& r : other) r.workload = "v";
  try {
    compare_folders(before, synthetic_folder("after", {other}), *find_metric("throughput"), 0.05);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.file(), "after/runs.jsonl");
    EXPECT_NE(error.message().find("shares no (workload, variant) with before/runs.jsonl"),
              std::string::npos);
  }
  EXPECT_EQ(comparable_metric_ids().front(), "throughput");
  for (const auto& id : comparable_metric_ids()) EXPECT_NE(id, "accuracy");  // a difference
}

}  // namespace
}  // namespace speedbench::report
