// Statistics of measurements: summaries of one sample (step times, throughputs), and the tools
// that compare a variant's repetitions with its baseline's: Student-t intervals and tests of
// paired runs' log ratios, bootstrap intervals and the Mann-Whitney U test where runs do not
// pair, and the Benjamini-Hochberg adjustment of a report's many p-values.
#pragma once

#include <cstdint>
#include <vector>

namespace speedbench::measure {

struct Summary {
  int count = 0;
  double mean = 0, median = 0, stddev = 0, min = 0, max = 0, p10 = 0, p90 = 0;
  double cv = 0;  // coefficient of variation, stddev / mean
};

// Quantile by linear interpolation between order statistics (numpy's default), q in [0, 1].
double quantile(std::vector<double> values, double q);
Summary summarize(const std::vector<double>& values);

struct Interval {
  double estimate = 0;  // the statistic on the samples themselves
  double low = 0, high = 0;
};

// median(variant) / median(baseline) with a percentile-bootstrap interval: both samples are
// resampled with replacement `resamples` times (seeded: the same inputs give the same interval).
Interval bootstrap_ratio_of_medians(const std::vector<double>& baseline,
                                    const std::vector<double>& variant, double confidence = 0.95,
                                    int resamples = 10000, uint64_t seed = 0);

// median(variant) - median(baseline), the same way (for accuracy deltas).
Interval bootstrap_difference_of_medians(const std::vector<double>& baseline,
                                         const std::vector<double>& variant,
                                         double confidence = 0.95, int resamples = 10000,
                                         uint64_t seed = 0);

// The median of paired differences (variant - baseline of runs that share a seed), resampling
// the pairs: runs with the same seed differ only by the technique, so a technique that does not
// change the arithmetic gets exactly [0, 0], where unpaired resampling would mix the seeds' own
// spread (+-0.48 accuracy between 40-step ResNet-8 runs) into the interval.
Interval bootstrap_median_of_differences(const std::vector<double>& differences,
                                         double confidence = 0.95, int resamples = 10000,
                                         uint64_t seed = 0);

// Student's t quantile: the t with P(|T| < t) = confidence for `degrees_of_freedom` >= 1 (from
// the closed form of the t distribution for whole degrees of freedom, inverted by bisection).
double student_t_quantile(double confidence, int degrees_of_freedom);

// The mean of `values` with its Student-t interval, mean -+ t * stddev / sqrt(n) (n >= 2; one
// value gives [value, value] with no width to trust). Unlike a percentile bootstrap, which with
// 3 values cannot reach beyond their range and so covers the median only 3 times in 4, it keeps
// its coverage with few values when they are roughly normal, as logs of timing ratios are.
Interval t_interval_of_mean(const std::vector<double>& values, double confidence = 0.95);

// The two-sided p-value of the one-sample t test of "the values' mean is 0" (n >= 2; 1 with
// fewer). It is t_interval_of_mean's own test: p < 1 - confidence exactly when that interval
// excludes 0 (for logs of paired ratios: when the geometric mean's interval excludes 1).
double t_test_p_value(const std::vector<double>& values);

// Ratios given as their logs: their geometric mean with the t interval of the logs' mean taken
// back, exp(mean -+ t * stddev / sqrt(n)) (ratios of paired runs: `compare` of a `run --against`).
Interval t_interval_of_geometric_mean(const std::vector<double>& log_ratios,
                                      double confidence = 0.95);

// How a paired ratio changed between two measurements of it (two machines, two builds, each run
// on its own): the logs of each measurement's pairs' ratios given, exp(mean(after) -
// mean(before)) with Welch's t interval (the two samples' own variances; Welch-Satterthwaite
// degrees of freedom, rounded down to keep the coverage). Each side needs 2 or more values.
Interval welch_t_interval_of_change(const std::vector<double>& before_log_ratios,
                                    const std::vector<double>& after_log_ratios,
                                    double confidence = 0.95);

// The two-sided p-value of Welch's t test of "the two samples' means are equal", the test of
// welch_t_interval_of_change (same degrees of freedom): p < 1 - confidence exactly when that
// interval excludes 1. 1 with fewer than 2 values on a side.
double welch_t_test_p_value(const std::vector<double>& before_values,
                            const std::vector<double>& after_values);

// How a ratio of medians changed between two measurements of it (two machines, two builds):
// (median(after_variant) / median(after_baseline)) / (median(before_variant) /
// median(before_baseline)), with a percentile-bootstrap interval that resamples all four samples.
Interval bootstrap_ratio_of_ratios(const std::vector<double>& before_baseline,
                                   const std::vector<double>& before_variant,
                                   const std::vector<double>& after_baseline,
                                   const std::vector<double>& after_variant,
                                   double confidence = 0.95, int resamples = 10000,
                                   uint64_t seed = 0);

// The Benjamini-Hochberg adjustment of a family of p-values (in their order): q_i, the smallest
// false discovery rate at which test i is a discovery. The tests with q < 0.05 hold, in
// expectation, at most 5% of false discoveries among them, where the tests are independent or
// positively dependent (as comparisons that share a baseline's runs are). A family of one: q = p.
std::vector<double> benjamini_hochberg(const std::vector<double>& p_values);

struct MannWhitney {
  double u = 0;        // U of the first sample: pairs (a_i > b_j) + half the ties
  double p_value = 1;  // two-sided
  bool exact = false;  // exact null distribution (no ties, small samples) or normal approximation
};

// The two-sided Mann-Whitney U test of "a and b come from the same distribution". Exact when
// there are no ties and n1 * n2 <= 400, else the normal approximation with tie and continuity
// corrections (as scipy.stats.mannwhitneyu).
MannWhitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace speedbench::measure
