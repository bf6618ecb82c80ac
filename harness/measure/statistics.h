// Summary statistics of a sample of measurements (step times, throughputs).
#pragma once

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

}  // namespace speedbench::measure
