// Number, interval and table texts shared by the markdown report's sections and the console
// summary.
#pragma once

#include <string>
#include <vector>

#include "harness/report/comparisons.h"

namespace speedbench::report {

// The items with `separator` between them: joined({"a", "b"}, ", ") is "a, b".
std::string joined(const std::vector<std::string>& items, const std::string& separator);

// `value` printed with a printf `pattern` such as "%.3g".
std::string format_number(const char* pattern, double value);

// "0.035", "<0.001": a p- or q-value as the report prints it.
std::string probability_text(double p);

// A comparison's q (its p adjusted over the report's comparisons); "-" where it has none.
std::string q_text(const MetricComparison* m);

// "296.1 GFLOP/s", "790 TFLOP/s": a FLOP rate, 4 significant digits, in TFLOP/s from 1e12 on.
std::string flop_rate_text(double flops_per_s);

// "1.42x [1.35, 1.50]": a ratio with its interval.
std::string ratio_text(const measure::Interval& interval);

// "1.5x (a side with 1 run: no interval)", "+0.0120 (a side with 1 run: no interval)": the estimate
// of a comparison with one run on a side (lacks_interval), whose [x, x] would look exact.
std::string no_interval_text(double estimate, const MetricInfo& info);

// "1.42x [1.35, 1.50]" for a ratio metric, "+0.012 [-0.003, +0.020]" for a difference; "-" when
// there is no comparison, "n/a (why)" when it is undefined, no_interval_text when a side has one
// run.
std::string interval_text(const MetricComparison* m, const MetricInfo& info);

// interval_text of the comparison's metric `id`.
std::string metric_text(const ComparisonResult& r, const std::string& id);

// A markdown table's row "| a | b |", and its header row with the separator line under it.
std::string table_row(const std::vector<std::string>& cells);
std::string table_header(const std::vector<std::string>& cells);

// A console table: each column as wide as its widest cell (two spaces between columns), the
// header row first; a row's last cell is not padded, and a row may have fewer cells (a note).
std::string console_table(const std::vector<std::vector<std::string>>& rows);

// Why a folder's records gave no comparison, and how to get one: the markdown report's and the
// console's text in place of empty tables.
std::string no_comparisons_text(const Results& results);

}  // namespace speedbench::report
