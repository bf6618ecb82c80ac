#include "harness/measure/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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

}  // namespace speedbench::measure
