#include "harness/measure/statistics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace speedbench::measure {

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double position = q * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, values.size() - 1);
  const double fraction = position - static_cast<double>(lower);
  return values[lower] + fraction * (values[upper] - values[lower]);
}

Summary summarize(const std::vector<double>& values) {
  Summary s;
  s.count = static_cast<int>(values.size());
  if (values.empty()) return s;
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / s.count;
  double squares = 0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  s.stddev = s.count > 1 ? std::sqrt(squares / (s.count - 1)) : 0.0;
  s.median = quantile(values, 0.5);
  s.p10 = quantile(values, 0.1);
  s.p90 = quantile(values, 0.9);
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  s.cv = s.mean > 0 ? s.stddev / s.mean : 0.0;
  return s;
}

namespace {

double median_of(std::vector<double> values) { return quantile(std::move(values), 0.5); }

// Counts of arrangements of n1 + n2 distinct values by the U of the first n1: the exact null
// distribution (f(n1, n2, u) = f(n1 - 1, n2, u - n2) + f(n1, n2 - 1, u)).
std::vector<double> exact_u_counts(int n1, int n2) {
  // counts[i][j] holds the distribution for sizes (i, j).
  std::vector<std::vector<std::vector<double>>> counts(n1 + 1,
                                                       std::vector<std::vector<double>>(n2 + 1));
  for (int i = 0; i <= n1; ++i) {
    for (int j = 0; j <= n2; ++j) {
      auto& dist = counts[i][j];
      dist.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        dist[0] = 1.0;
        continue;
      }
      for (int u = 0; u <= i * j; ++u) {
        if (u - j >= 0 && u - j < static_cast<int>(counts[i - 1][j].size()))
          dist[u] += counts[i - 1][j][u - j];
        if (u < static_cast<int>(counts[i][j - 1].size())) dist[u] += counts[i][j - 1][u];
      }
    }
  }
  return counts[n1][n2];
}

}  // namespace

namespace {

// A sample drawn from `sample` with replacement, of its size.
std::vector<double> resampled(const std::vector<double>& sample, std::mt19937_64& rng) {
  std::uniform_int_distribution<size_t> pick(0, sample.size() - 1);
  std::vector<double> drawn(sample.size());
  for (auto& value : drawn) value = sample[pick(rng)];
  return drawn;
}

// The percentile interval: the middle `confidence` of the resampled statistics.
void set_percentile_bounds(Interval& interval, const std::vector<double>& statistics,
                           double confidence) {
  interval.low = quantile(statistics, (1.0 - confidence) / 2.0);
  interval.high = quantile(statistics, 1.0 - (1.0 - confidence) / 2.0);
}

// Percentile bootstrap of combine(median(variant), median(baseline)): both samples resampled with
// replacement, seeded so that the same inputs give the same interval.
template <typename Combine>
Interval bootstrap_medians(const std::vector<double>& baseline, const std::vector<double>& variant,
                           double confidence, int resamples, uint64_t seed, Combine combine) {
  Interval interval;
  if (baseline.empty() || variant.empty()) return interval;
  interval.estimate = combine(median_of(variant), median_of(baseline));
  std::mt19937_64 rng(seed);
  std::vector<double> statistics(resamples);
  for (auto& statistic : statistics) {
    statistic = combine(median_of(resampled(variant, rng)), median_of(resampled(baseline, rng)));
  }
  set_percentile_bounds(interval, statistics, confidence);
  return interval;
}

}  // namespace

Interval bootstrap_ratio_of_medians(const std::vector<double>& baseline,
                                    const std::vector<double>& variant, double confidence,
                                    int resamples, uint64_t seed) {
  return bootstrap_medians(baseline, variant, confidence, resamples, seed,
                           [](double v, double b) { return v / b; });
}

Interval bootstrap_difference_of_medians(const std::vector<double>& baseline,
                                         const std::vector<double>& variant, double confidence,
                                         int resamples, uint64_t seed) {
  return bootstrap_medians(baseline, variant, confidence, resamples, seed,
                           [](double v, double b) { return v - b; });
}

Interval bootstrap_median_of_differences(const std::vector<double>& differences, double confidence,
                                         int resamples, uint64_t seed) {
  Interval interval;
  if (differences.empty()) return interval;
  interval.estimate = median_of(differences);
  std::mt19937_64 rng(seed);
  std::vector<double> statistics(resamples);
  for (auto& statistic : statistics) statistic = median_of(resampled(differences, rng));
  set_percentile_bounds(interval, statistics, confidence);
  return interval;
}

namespace {

// P(|T| < t) for Student's t with whole `df` degrees of freedom, the classic finite series in
// theta = atan(t / sqrt(df)) (Abramowitz and Stegun 26.7.3, 26.7.4).
double t_two_sided_probability(double t, int df) {
  const double theta = std::atan(t / std::sqrt(static_cast<double>(df)));
  const double c2 = std::cos(theta) * std::cos(theta);
  const double pi = std::acos(-1.0);
  double sum = 1, term = 1;
  if (df % 2 == 0) {  // sin(theta) (1 + 1/2 cos^2 + 1*3/(2*4) cos^4 + ... up to cos^(df-2))
    for (int j = 1; 2 * j <= df - 2; ++j) {
      term *= c2 * (2 * j - 1) / (2 * j);
      sum += term;
    }
    return std::sin(theta) * sum;
  }
  if (df == 1) return 2 * theta / pi;
  // 2/pi (theta + sin cos (1 + 2/3 cos^2 + 2*4/(3*5) cos^4 + ... up to cos^(df-3)))
  for (int j = 1; 2 * j + 1 <= df - 2; ++j) {
    term *= c2 * (2 * j) / (2 * j + 1);
    sum += term;
  }
  return 2 / pi * (theta + std::sin(theta) * std::cos(theta) * sum);
}

}  // namespace

double student_t_quantile(double confidence, int degrees_of_freedom) {
  double low = 0, high = 1;
  while (t_two_sided_probability(high, degrees_of_freedom) < confidence) high *= 2;
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double middle = (low + high) / 2;
    (t_two_sided_probability(middle, degrees_of_freedom) < confidence ? low : high) = middle;
  }
  return (low + high) / 2;
}

Interval t_interval_of_mean(const std::vector<double>& values, double confidence) {
  Interval interval;
  if (values.empty()) return interval;
  const auto summary = summarize(values);
  interval.estimate = interval.low = interval.high = summary.mean;
  if (values.size() < 2) return interval;
  const double half_width = student_t_quantile(confidence, summary.count - 1) * summary.stddev /
                            std::sqrt(static_cast<double>(summary.count));
  interval.low = summary.mean - half_width;
  interval.high = summary.mean + half_width;
  return interval;
}

double t_test_p_value(const std::vector<double>& values) {
  if (values.size() < 2) return 1;
  const auto summary = summarize(values);
  if (summary.stddev == 0) return summary.mean == 0 ? 1 : 0;  // no spread: certain either way
  const double t =
      std::abs(summary.mean) * std::sqrt(static_cast<double>(summary.count)) / summary.stddev;
  return 1 - t_two_sided_probability(t, summary.count - 1);
}

Interval t_interval_of_geometric_mean(const std::vector<double>& log_ratios, double confidence) {
  auto interval = t_interval_of_mean(log_ratios, confidence);
  for (double* bound : {&interval.estimate, &interval.low, &interval.high})
    *bound = std::exp(*bound);
  return interval;
}

namespace {

// Welch's t for the change of two samples' means, after - before: the difference, its standard
// error, and the Welch-Satterthwaite degrees of freedom rounded down (to keep the coverage).
struct WelchT {
  double difference = 0;
  double standard_error = 0;  // 0: every value alike on both sides
  int degrees_of_freedom = 1;
};

WelchT welch_t(const std::vector<double>& before_values, const std::vector<double>& after_values) {
  const auto before = summarize(before_values);
  const auto after = summarize(after_values);
  WelchT welch;
  welch.difference = after.mean - before.mean;
  // Each mean's variance, s^2 / n.
  const double before_variance = before.stddev * before.stddev / before.count;
  const double after_variance = after.stddev * after.stddev / after.count;
  const double variance = before_variance + after_variance;
  if (variance == 0) return welch;
  welch.standard_error = std::sqrt(variance);
  const double degrees_of_freedom = variance * variance /
                                    (before_variance * before_variance / (before.count - 1) +
                                     after_variance * after_variance / (after.count - 1));
  welch.degrees_of_freedom = std::max(1, static_cast<int>(degrees_of_freedom));
  return welch;
}

}  // namespace

Interval welch_t_interval_of_change(const std::vector<double>& before_log_ratios,
                                    const std::vector<double>& after_log_ratios,
                                    double confidence) {
  Interval interval;
  if (before_log_ratios.size() < 2 || after_log_ratios.size() < 2) return interval;
  const auto welch = welch_t(before_log_ratios, after_log_ratios);
  interval.estimate = interval.low = interval.high = std::exp(welch.difference);
  if (welch.standard_error == 0) return interval;  // every ratio alike on both sides: no width
  const double half_width =
      student_t_quantile(confidence, welch.degrees_of_freedom) * welch.standard_error;
  interval.low = std::exp(welch.difference - half_width);
  interval.high = std::exp(welch.difference + half_width);
  return interval;
}

double welch_t_test_p_value(const std::vector<double>& before_values,
                            const std::vector<double>& after_values) {
  if (before_values.size() < 2 || after_values.size() < 2) return 1;
  const auto welch = welch_t(before_values, after_values);
  if (welch.standard_error == 0) return welch.difference == 0 ? 1 : 0;  // certain either way
  return 1 - t_two_sided_probability(std::abs(welch.difference) / welch.standard_error,
                                     welch.degrees_of_freedom);
}

Interval bootstrap_ratio_of_ratios(const std::vector<double>& before_baseline,
                                   const std::vector<double>& before_variant,
                                   const std::vector<double>& after_baseline,
                                   const std::vector<double>& after_variant, double confidence,
                                   int resamples, uint64_t seed) {
  Interval interval;
  const std::vector<const std::vector<double>*> samples = {&before_baseline, &before_variant,
                                                           &after_baseline, &after_variant};
  if (std::any_of(samples.begin(), samples.end(), [](const auto* s) { return s->empty(); })) {
    return interval;
  }
  auto change = [](double bb, double bv, double ab, double av) { return (av / ab) / (bv / bb); };
  interval.estimate = change(median_of(before_baseline), median_of(before_variant),
                             median_of(after_baseline), median_of(after_variant));
  std::mt19937_64 rng(seed);
  std::vector<double> statistics(resamples);
  for (auto& statistic : statistics) {
    // One draw per sample, in a fixed order, so that the same inputs give the same interval.
    const double bb = median_of(resampled(before_baseline, rng));
    const double bv = median_of(resampled(before_variant, rng));
    const double ab = median_of(resampled(after_baseline, rng));
    const double av = median_of(resampled(after_variant, rng));
    statistic = change(bb, bv, ab, av);
  }
  set_percentile_bounds(interval, statistics, confidence);
  return interval;
}

MannWhitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitney result;
  const auto n1 = static_cast<int>(a.size()), n2 = static_cast<int>(b.size());
  if (n1 == 0 || n2 == 0) return result;
  for (double x : a) {
    for (double y : b) result.u += x > y ? 1.0 : (x == y ? 0.5 : 0.0);
  }
  std::map<double, int> tie_counts;
  for (double v : a) tie_counts[v] += 1;
  for (double v : b) tie_counts[v] += 1;
  const bool ties = static_cast<int>(tie_counts.size()) < n1 + n2;
  const double mean = n1 * n2 / 2.0;

  if (!ties && n1 * n2 <= 400) {
    // Two-sided: twice the smaller tail of the exact distribution, at most 1.
    const auto counts = exact_u_counts(n1, n2);
    const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    const auto u = static_cast<int>(result.u);
    const int tail_u = result.u <= mean ? u : n1 * n2 - u;  // the distribution is symmetric
    double tail = 0;
    for (int k = 0; k <= tail_u; ++k) tail += counts[k];
    result.p_value = std::min(1.0, 2.0 * tail / total);
    result.exact = true;
    return result;
  }
  const double n = n1 + n2;
  double tie_term = 0;
  for (const auto& [value, count] : tie_counts) tie_term += std::pow(count, 3) - count;
  const double variance = n1 * n2 / 12.0 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) return result;  // every value equal: no evidence of a difference
  const double distance = std::max(0.0, std::abs(result.u - mean) - 0.5);  // continuity
  const double z = distance / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  return result;
}

std::vector<double> benjamini_hochberg(const std::vector<double>& p_values) {
  const size_t m = p_values.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  // From the largest p down: q of rank k is min(m p_(k) / k, q of rank k + 1), at most 1.
  std::vector<double> q(m);
  double smallest_above = 1;
  for (size_t rank = m; rank >= 1; --rank) {
    const size_t i = order[rank - 1];
    smallest_above = std::min(smallest_above, p_values[i] * static_cast<double>(m) / rank);
    q[i] = smallest_above;
  }
  return q;
}

}  // namespace speedbench::measure
