#include "harness/report/report_text.h"

#include <algorithm>
#include <cstdio>

namespace speedbench::report {

std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

std::string format_number(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

std::string probability_text(double p) { return p < 0.001 ? "<0.001" : format_number("%.3f", p); }

std::string q_text(const MetricComparison* m) {
  return m == nullptr || !m->defined ? "-" : probability_text(m->q_value);
}

std::string flop_rate_text(double flops_per_s) {
  // In TFLOP/s from 1e12 on: a GPU's peaks read "790 TFLOP/s", not "7.9e+05 GFLOP/s".
  if (flops_per_s >= 1e12) return format_number("%.4g", flops_per_s / 1e12) + " TFLOP/s";
  return format_number("%.4g", flops_per_s / 1e9) + " GFLOP/s";
}

std::string ratio_text(const measure::Interval& interval) {
  return format_number("%.3gx", interval.estimate) + " [" + format_number("%.3g", interval.low) +
         ", " + format_number("%.3g", interval.high) + "]";
}

std::string no_interval_text(double estimate, const MetricInfo& info) {
  return format_number(info.ratio ? "%.3gx" : "%+.4f", estimate) +
         " (a side with 1 run: no interval)";
}

std::string interval_text(const MetricComparison* m, const MetricInfo& info) {
  if (m == nullptr) return "-";
  if (!m->defined) return m->note.empty() ? "-" : "n/a (" + m->note + ")";
  if (lacks_interval(*m)) return no_interval_text(m->interval.estimate, info);
  if (info.ratio) return ratio_text(m->interval);
  return format_number("%+.4f", m->interval.estimate) + " [" +
         format_number("%+.4f", m->interval.low) + ", " + format_number("%+.4f", m->interval.high) +
         "]" + (m->paired() ? "" : " (unpaired)");
}

std::string metric_text(const ComparisonResult& r, const std::string& id) {
  return interval_text(r.metric(id), *find_metric(id));
}

std::string console_table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    for (size_t i = 0; i + 1 < row.size(); ++i) {  // a last cell sets no width
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string text;
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      text += row[i];
      if (i + 1 < row.size()) text += std::string(widths[i] - row[i].size() + 2, ' ');
    }
    text += "\n";
  }
  return text;
}

std::string table_row(const std::vector<std::string>& cells) {
  std::string line = "|";
  for (const auto& cell : cells) line += " " + cell + " |";
  return line + "\n";
}

std::string table_header(const std::vector<std::string>& cells) {
  std::string separator = "|";
  for (size_t i = 0; i < cells.size(); ++i) separator += "---|";
  return table_row(cells) + separator + "\n";
}

std::string no_comparisons_text(const Results& results) {
  if (!results.plan.is_null()) {
    return "No comparisons: the plan (plan.json) lists none. Each variant's own numbers are "
           "under \"Variants\".";
  }
  return "No comparisons: without a plan.json (records of `run-one`, not of a suite run) each "
         "variant is compared with the variant `baseline` of its workload, and these records "
         "have no other variant. Name a run's variant with `run-one --variant NAME`, or run a "
         "suite (`speedbench run --suite`). Each variant's own numbers are under \"Variants\".";
}

}  // namespace speedbench::report
