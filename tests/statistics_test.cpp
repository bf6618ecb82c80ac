// Statistics against known values: quantiles, the exact and approximate Mann-Whitney U test
// (p-values from an independent enumeration of all arrangements, and scipy's asymptotic formula),
// and the bootstrap interval's properties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "harness/measure/statistics.h"

namespace speedbench::measure {
namespace {

TEST(StatisticsTest, QuantilesInterpolateLikeNumpy) {
  EXPECT_DOUBLE_EQ(quantile({4, 1, 3, 2}, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.1), 1.4);
  const auto s = summarize({2, 4, 4, 4, 5, 5, 7, 9});
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.stddev, 2.138089935, 1e-9);  // sample standard deviation
  EXPECT_NEAR(s.cv, 2.138089935 / 5.0, 1e-9);
}

TEST(MannWhitneyTest, ExactPValuesOfSmallSamples) {
  // Every value of b above every value of a: U = 0, p = 2 / C(10, 5) = 2 / 252.
  auto separated = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_TRUE(separated.exact);
  EXPECT_EQ(separated.u, 0.0);
  EXPECT_NEAR(separated.p_value, 0.007936507936507936, 1e-12);
  // Interleaved: U = 10, p = 0.6904761904761905 (enumeration of all 252 arrangements).
  auto interleaved = mann_whitney_u({1, 3, 5, 7, 9}, {2, 4, 6, 8, 10});
  EXPECT_EQ(interleaved.u, 10.0);
  EXPECT_NEAR(interleaved.p_value, 0.6904761904761905, 1e-12);
  // Unequal sizes: U = 5, p = 0.2857142857142857 (enumeration of the 126 arrangements).
  auto unequal = mann_whitney_u({1.1, 2.2, 3.3, 10.0}, {4.4, 5.5, 6.6, 7.7, 8.8});
  EXPECT_EQ(unequal.u, 5.0);
  EXPECT_NEAR(unequal.p_value, 0.2857142857142857, 1e-12);
  // Swapping the samples mirrors U and keeps p.
  auto swapped = mann_whitney_u({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_EQ(swapped.u, 25.0);
  EXPECT_NEAR(swapped.p_value, separated.p_value, 1e-15);
}

TEST(MannWhitneyTest, TiesUseTheNormalApproximationWithCorrections) {
  auto result = mann_whitney_u({1, 2, 2, 3, 4, 5, 5, 6}, {3, 4, 5, 6, 6, 7, 8, 9, 9, 10});
  EXPECT_FALSE(result.exact);
  EXPECT_EQ(result.u, 11.0);
  EXPECT_NEAR(result.p_value, 0.010830569686182548, 1e-12);
  EXPECT_EQ(mann_whitney_u({3, 3, 3}, {3, 3}).p_value, 1.0);  // all equal: no evidence
}

TEST(BootstrapTest, IntervalOfTheRatioOfMedians) {
  const std::vector<double> baseline = {100, 102, 98, 101, 99, 103, 97};
  const std::vector<double> faster = {150, 149, 152, 148, 151, 153, 147};
  const auto interval = bootstrap_ratio_of_medians(baseline, faster);
  EXPECT_DOUBLE_EQ(interval.estimate, 150.0 / 100.0);
  EXPECT_LE(interval.low, interval.estimate);
  EXPECT_GE(interval.high, interval.estimate);
  EXPECT_GT(interval.low, 1.4);  // clearly faster: the interval excludes 1 by far
  EXPECT_LT(interval.high, 1.6);
  // Seeded: the same inputs give the same interval.
  const auto again = bootstrap_ratio_of_medians(baseline, faster);
  EXPECT_EQ(interval.low, again.low);
  EXPECT_EQ(interval.high, again.high);
  // Constant samples: no spread, a degenerate interval at the estimate.
  const auto constant = bootstrap_ratio_of_medians({2, 2, 2}, {3, 3, 3});
  EXPECT_DOUBLE_EQ(constant.low, 1.5);
  EXPECT_DOUBLE_EQ(constant.high, 1.5);
  // Overlapping samples: the interval straddles 1.
  const auto same = bootstrap_ratio_of_medians(baseline, {101, 99, 100, 102, 98, 97, 103});
  EXPECT_LT(same.low, 1.0);
  EXPECT_GT(same.high, 1.0);
}

// Under no effect (both sides drawn from one distribution) a 95% interval should exclude 1 about
// 1 time in 20. With 3 runs a side each extreme median turns up in 7/27 of the resamples, so the
// interval is the whole range of run ratios and excludes 1 exactly when one side's runs all lie
// above the other's: 2 of the 20 equally likely arrangements, 1 time in 10. Scaling one side
// scales the interval, so for any true ratio it holds that ratio 9 times in 10, not 19 in 20.
// From 5 runs a side it is near nominal. The report and the verdicts say so below
// kMinRunsPerSide.
TEST(BootstrapTest, UnderFiveRunsASideTheIntervalUndercovers) {
  const auto three = bootstrap_ratio_of_medians({10, 11, 12}, {13, 14, 15});
  EXPECT_DOUBLE_EQ(three.low, 13.0 / 12.0);
  EXPECT_DOUBLE_EQ(three.high, 15.0 / 10.0);

  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> run_throughput(0.0, 0.1);
  auto draw = [&](int runs) {
    std::vector<double> sample(runs);
    for (auto& value : sample) value = run_throughput(rng);
    return sample;
  };
  auto excludes_one = [](const Interval& interval) {
    return interval.low > 1.0 || interval.high < 1.0;
  };
  for (int trial = 0; trial < 200; ++trial) {
    const auto baseline = draw(3), variant = draw(3);
    const auto [b_min, b_max] = std::minmax_element(baseline.begin(), baseline.end());
    const auto [v_min, v_max] = std::minmax_element(variant.begin(), variant.end());
    const bool separated = *v_min > *b_max || *v_max < *b_min;
    ASSERT_EQ(excludes_one(bootstrap_ratio_of_medians(baseline, variant, 0.95, 1000)), separated)
        << "trial " << trial;
  }
  constexpr int kTrials = 1000;
  int excluded = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const auto baseline = draw(5), variant = draw(5);
    excluded += excludes_one(bootstrap_ratio_of_medians(baseline, variant, 0.95, 1000));
  }
  EXPECT_LT(static_cast<double>(excluded) / kTrials, 0.07);  // 0.032 with this seed
}

TEST(StudentTTest, QuantilesMatchTheTables) {
  // Two-sided 95% and 99% points of Student's t (scipy.stats.t.ppf(0.975 / 0.995, df)).
  EXPECT_NEAR(student_t_quantile(0.95, 1), 12.706204736, 1e-6);
  EXPECT_NEAR(student_t_quantile(0.95, 2), 4.302652730, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 3), 3.182446305, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 4), 2.776445105, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 10), 2.228138852, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 29), 2.045229642, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.99, 5), 4.032142984, 1e-8);
  EXPECT_NEAR(student_t_quantile(0.95, 100000), 1.959983, 1e-5);  // the normal's
}

TEST(StudentTTest, IntervalOfTheMeanKeepsItsCoverageWithThreeValues) {
  const auto three = t_interval_of_mean({1, 2, 3});
  EXPECT_DOUBLE_EQ(three.estimate, 2.0);
  EXPECT_NEAR(three.low, 2.0 - 4.302652730 / std::sqrt(3.0), 1e-8);  // stddev 1
  EXPECT_NEAR(three.high, 2.0 + 4.302652730 / std::sqrt(3.0), 1e-8);
  const auto same = t_interval_of_mean({0.5, 0.5, 0.5});
  EXPECT_EQ(same.low, 0.5);
  EXPECT_EQ(same.high, 0.5);

  // Three normal values, 2000 times: the t interval holds the true mean 95% of the time; the
  // bootstrap percentile interval of their median is their range, which holds it only when they
  // are not all on one side: 1 - 2 / 2^3 = 75%.
  std::mt19937_64 rng(11);
  std::normal_distribution<double> log_ratio(0.0, 0.09);
  constexpr int kTrials = 2000;
  int t_covered = 0, bootstrap_covered = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const std::vector<double> values = {log_ratio(rng), log_ratio(rng), log_ratio(rng)};
    const auto t = t_interval_of_mean(values);
    const auto bootstrap = bootstrap_median_of_differences(values, 0.95, 500);
    t_covered += t.low <= 0 && t.high >= 0;
    bootstrap_covered += bootstrap.low <= 0 && bootstrap.high >= 0;
  }
  EXPECT_NEAR(static_cast<double>(t_covered) / kTrials, 0.95, 0.015);
  EXPECT_NEAR(static_cast<double>(bootstrap_covered) / kTrials, 0.75, 0.03);
}

TEST(StudentTTest, PValueOfTheMeanIsTheIntervalsOwnTest) {
  // {1, 2, 3}: t = 2 / (1 / sqrt(3)) with 2 degrees of freedom, where P(|T| < t) = t / sqrt(t^2
  // + 2) in closed form: p = 1 - sqrt(12 / 14) (scipy.stats.ttest_1samp: 0.0742).
  EXPECT_NEAR(t_test_p_value({1, 2, 3}), 1 - std::sqrt(12.0 / 14.0), 1e-12);
  EXPECT_NEAR(t_test_p_value({-1, -2, -3}), 1 - std::sqrt(12.0 / 14.0), 1e-12);
  EXPECT_EQ(t_test_p_value({0.2}), 1.0);  // one value: nothing to test
  EXPECT_EQ(t_test_p_value({0, 0, 0}), 1.0);
  EXPECT_EQ(t_test_p_value({0.5, 0.5, 0.5}), 0.0);  // no spread, not 0: certain
  // p < 0.05 exactly when the 95% interval excludes 0, value set by value set.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> value(0.05, 0.1);
  int excluded = 0;
  for (int trial = 0; trial < 500; ++trial) {
    const std::vector<double> values = {value(rng), value(rng), value(rng), value(rng)};
    const auto interval = t_interval_of_mean(values);
    const bool excludes_zero = interval.low > 0 || interval.high < 0;
    EXPECT_EQ(t_test_p_value(values) < 0.05, excludes_zero) << "trial " << trial;
    excluded += excludes_zero;
  }
  EXPECT_GT(excluded, 20);  // both outcomes were tried
  EXPECT_LT(excluded, 480);
}

TEST(StudentTTest, WelchIntervalOfAChangeOfPairedRatios) {
  // Logs {0.1, 0.2, 0.3} (variance 0.01) before, {0.5, ..., 0.9} (variance 0.025) after: the
  // means differ by 0.5 with standard error sqrt(0.01 / 3 + 0.025 / 5); Welch-Satterthwaite gives
  // 5.88 degrees of freedom, taken as 5 (t = 2.570581836, scipy.stats.t.ppf(0.975, 5)).
  const auto change = welch_t_interval_of_change({0.1, 0.2, 0.3}, {0.5, 0.7, 0.6, 0.9, 0.8});
  const double half_width = 2.570581836 * std::sqrt(0.01 / 3 + 0.025 / 5);
  EXPECT_NEAR(change.estimate, std::exp(0.5), 1e-12);
  EXPECT_NEAR(change.low, std::exp(0.5 - half_width), 1e-8);
  EXPECT_NEAR(change.high, std::exp(0.5 + half_width), 1e-8);
  const auto exact = welch_t_interval_of_change({0.2, 0.2}, {0.3, 0.3, 0.3});
  EXPECT_NEAR(exact.low, std::exp(0.1), 1e-12);  // no spread on either side: no width
  EXPECT_NEAR(exact.high, std::exp(0.1), 1e-12);
  const auto one = welch_t_interval_of_change({0.2}, {0.3, 0.4});
  EXPECT_EQ(one.low, one.high);  // a side with one value: nothing to draw from

  // 3 before and 5 after with unequal spreads, 2000 times: the interval holds the true change.
  std::mt19937_64 rng(3);
  std::normal_distribution<double> before_log(0.1, 0.05), after_log(0.3, 0.12);
  constexpr int kTrials = 2000;
  int covered = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<double> before(3), after(5);
    for (auto& value : before) value = before_log(rng);
    for (auto& value : after) value = after_log(rng);
    const auto interval = welch_t_interval_of_change(before, after);
    covered += interval.low <= std::exp(0.2) && interval.high >= std::exp(0.2);
  }
  EXPECT_NEAR(static_cast<double>(covered) / kTrials, 0.95, 0.02);
}

TEST(StudentTTest, WelchTestOfAChangeIsTheTestOfItsInterval) {
  // Means 1 and 5, each sample's variance 2: standard error sqrt(2 / 2 + 2 / 2), t = 4 / sqrt(2),
  // 2 degrees of freedom, where P(|T| < t) = t / sqrt(t^2 + 2): p = 1 - 2.828 / sqrt(10).
  EXPECT_NEAR(welch_t_test_p_value({0, 2}, {4, 6}), 1 - std::sqrt(8.0) / std::sqrt(10.0), 1e-12);
  EXPECT_NEAR(welch_t_test_p_value({4, 6}, {0, 2}), 1 - std::sqrt(8.0) / std::sqrt(10.0), 1e-12);
  EXPECT_EQ(welch_t_test_p_value({0.2, 0.2}, {0.3, 0.3, 0.3}), 0);  // no spread: certain
  EXPECT_EQ(welch_t_test_p_value({0.2, 0.2}, {0.2, 0.2}), 1);
  EXPECT_EQ(welch_t_test_p_value({0.2}, {0.3, 0.4}), 1);  // a side with one value: no test
  // p < 0.05 exactly when the 95% interval excludes 1 (the logs' change excludes 0).
  std::mt19937_64 rng(5);
  std::normal_distribution<double> before_log(0.0, 0.1), after_log(0.08, 0.2);
  int excluded = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<double> before(3), after(5);
    for (auto& value : before) value = before_log(rng);
    for (auto& value : after) value = after_log(rng);
    const auto interval = welch_t_interval_of_change(before, after);
    const bool excludes_one = interval.low > 1 || interval.high < 1;
    EXPECT_EQ(welch_t_test_p_value(before, after) < 0.05, excludes_one) << "trial " << trial;
    excluded += excludes_one;
  }
  EXPECT_GT(excluded, 20);  // both outcomes were tried
  EXPECT_LT(excluded, 480);
}

TEST(BenjaminiHochbergTest, AdjustedPValuesMatchRs) {
  // R: p.adjust(c(0.01, 0.04, 0.03, 0.005), "BH") is 0.02 0.04 0.04 0.02 (in the given order).
  const auto q = benjamini_hochberg({0.01, 0.04, 0.03, 0.005});
  const std::vector<double> expected = {0.02, 0.04, 0.04, 0.02};
  ASSERT_EQ(q.size(), expected.size());
  for (size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], expected[i], 1e-15) << i;
  // A smaller p further down carries its q up (0.02 * 3 / 1 = 0.06 becomes 0.021 * 3 / 2), and
  // q is at most 1 (0.6 * 2 / 1 = 1.2).
  const auto carried = benjamini_hochberg({0.02, 0.021, 0.9});
  EXPECT_NEAR(carried[0], 0.0315, 1e-15);
  EXPECT_NEAR(carried[1], 0.0315, 1e-15);
  EXPECT_NEAR(carried[2], 0.9, 1e-15);
  const auto capped = benjamini_hochberg({0.6, 0.8});
  EXPECT_DOUBLE_EQ(capped[0], 0.8);
  EXPECT_DOUBLE_EQ(capped[1], 0.8);
  EXPECT_EQ(benjamini_hochberg({0.03}), std::vector<double>{0.03});  // a family of one: q = p
  EXPECT_TRUE(benjamini_hochberg({}).empty());
}

// Ten techniques with no effect, each paired with one baseline's 5 runs (so their tests are
// positively dependent, as a workload's comparisons in a report are), 2000 times: some p < 0.05
// in about a third of the families, some q < 0.05 in at most about 5%. With 3 real effects among
// the 10, the share of false ones among those with q < 0.05 stays under 5%.
TEST(BenjaminiHochbergTest, KeepsTheFalseDiscoveriesOfComparisonsThatShareABaseline) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> run_noise(0, 0.1);
  constexpr int kFamilies = 2000, kTechniques = 10, kRuns = 5;
  auto family_p_values = [&](int real_effects) {
    std::vector<double> baseline(kRuns);
    for (auto& log_value : baseline) log_value = run_noise(rng);
    std::vector<double> p_values;
    for (int technique = 0; technique < kTechniques; ++technique) {
      const double effect = technique < real_effects ? 0.3 : 0.0;
      std::vector<double> log_ratios;
      for (int run = 0; run < kRuns; ++run)
        log_ratios.push_back(effect + run_noise(rng) - baseline[run]);
      p_values.push_back(t_test_p_value(log_ratios));
    }
    return p_values;
  };
  int with_p = 0, with_q = 0;
  for (int family = 0; family < kFamilies; ++family) {
    const auto p = family_p_values(0);
    const auto q = benjamini_hochberg(p);
    with_p += std::any_of(p.begin(), p.end(), [](double x) { return x < 0.05; });
    with_q += std::any_of(q.begin(), q.end(), [](double x) { return x < 0.05; });
  }
  EXPECT_GT(static_cast<double>(with_p) / kFamilies, 0.2);
  EXPECT_LT(static_cast<double>(with_q) / kFamilies, 0.065);  // 0.05 + 3 standard errors

  double false_share_sum = 0;
  int true_found = 0;
  for (int family = 0; family < kFamilies; ++family) {
    const auto q = benjamini_hochberg(family_p_values(3));
    int found = 0, false_found = 0;
    for (int technique = 0; technique < kTechniques; ++technique) {
      if (q[technique] >= 0.05) continue;
      found += 1;
      false_found += technique >= 3;
      true_found += technique < 3;
    }
    if (found > 0) false_share_sum += static_cast<double>(false_found) / found;
  }
  EXPECT_LT(false_share_sum / kFamilies, 0.05);
  EXPECT_GT(static_cast<double>(true_found) / (3 * kFamilies), 0.5);  // it still finds effects
}

TEST(BootstrapTest, IntervalOfTheMedianOfPairedDifferences) {
  const auto none = bootstrap_median_of_differences({0, 0, 0});
  EXPECT_EQ(none.estimate, 0.0);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_EQ(none.high, 0.0);
  const auto spread = bootstrap_median_of_differences({1, 2, 3});
  EXPECT_DOUBLE_EQ(spread.estimate, 2.0);
  // Resampled medians of three values stay within their range and reach both ends.
  EXPECT_DOUBLE_EQ(spread.low, 1.0);
  EXPECT_DOUBLE_EQ(spread.high, 3.0);
  const auto narrow = bootstrap_median_of_differences({1, 2, 2, 2, 2, 2, 3});
  EXPECT_DOUBLE_EQ(narrow.low, 2.0);  // P(resampled median != 2) is under 2.5% on each side
  EXPECT_DOUBLE_EQ(narrow.high, 2.0);
  EXPECT_EQ(bootstrap_median_of_differences({}).estimate, 0.0);
}

// compare's technique effects: how a ratio of medians changed between two folders.
TEST(BootstrapTest, IntervalOfTheRatioOfRatios) {
  // 1.5x before, 3x after (the baseline halved): the effect doubled, exactly.
  const auto doubled =
      bootstrap_ratio_of_ratios({100, 100, 100}, {150, 150, 150}, {50, 50, 50}, {150, 150, 150});
  EXPECT_DOUBLE_EQ(doubled.estimate, 2.0);
  EXPECT_DOUBLE_EQ(doubled.low, 2.0);
  EXPECT_DOUBLE_EQ(doubled.high, 2.0);
  // A machine twice as fast with the same 1.5x effect: no change, though every run differs.
  const std::vector<double> before_baseline = {100, 102, 98, 101, 99};
  const std::vector<double> before_variant = {150, 149, 152, 148, 151};
  std::vector<double> after_baseline, after_variant;
  for (double x : before_baseline) after_baseline.push_back(2 * x);
  for (double x : before_variant) after_variant.push_back(2 * x);
  const auto same =
      bootstrap_ratio_of_ratios(before_baseline, before_variant, after_baseline, after_variant);
  EXPECT_DOUBLE_EQ(same.estimate, 1.0);
  EXPECT_LT(same.low, 1.0);
  EXPECT_GT(same.high, 1.0);
  EXPECT_GT(same.low, 0.9);  // each side's effect is tight, so is its change
  EXPECT_LT(same.high, 1.1);
  EXPECT_EQ(
      bootstrap_ratio_of_ratios(before_baseline, before_variant, after_baseline, after_variant).low,
      same.low);                                                      // seeded
  EXPECT_EQ(bootstrap_ratio_of_ratios({}, {1}, {1}, {1}).high, 0.0);  // an empty side: none

  // No change anywhere (four samples from one distribution): with 5 runs each the 95% interval
  // excludes 1 about as often as it should.
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> run_throughput(0.0, 0.1);
  auto draw = [&] {
    std::vector<double> sample(5);
    for (auto& value : sample) value = run_throughput(rng);
    return sample;
  };
  constexpr int kTrials = 400;
  int excluded = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const auto a = draw(), b = draw(), c = draw(), d = draw();
    const auto interval = bootstrap_ratio_of_ratios(a, b, c, d, 0.95, 1000);
    excluded += interval.low > 1.0 || interval.high < 1.0;
  }
  EXPECT_LT(static_cast<double>(excluded) / kTrials, 0.08);
}

TEST(BootstrapTest, IntervalOfTheDifferenceOfMedians) {
  const auto constant = bootstrap_difference_of_medians({5, 5, 5}, {7, 7, 7});
  EXPECT_DOUBLE_EQ(constant.estimate, 2.0);
  EXPECT_DOUBLE_EQ(constant.low, 2.0);
  EXPECT_DOUBLE_EQ(constant.high, 2.0);
  const auto shifted = bootstrap_difference_of_medians({1, 2, 3}, {2, 3, 4});
  EXPECT_DOUBLE_EQ(shifted.estimate, 1.0);
  // Resampled medians stay within each sample's range: the difference within [-1, 3].
  EXPECT_GE(shifted.low, -1.0);
  EXPECT_LT(shifted.low, 1.0);
  EXPECT_GT(shifted.high, 1.0);
  EXPECT_LE(shifted.high, 3.0);
  EXPECT_DOUBLE_EQ(bootstrap_difference_of_medians({1, 2, 3}, {2, 3, 4}).low,
                   shifted.low);  // seeded
}

}  // namespace
}  // namespace speedbench::measure
