#include "harness/report/micro_benchmarks.h"

#include <map>
#include <sstream>

#include "harness/config/config_error.h"
#include "harness/config/json_reader.h"
#include "harness/report/report_text.h"

namespace speedbench::report {

namespace {

std::string rate_text(const MicroBenchmark& b) {
  if (b.bytes_per_second > 0) return format_number("%.3g GB/s", b.bytes_per_second / 1e9);
  if (b.items_per_second > 0) return format_number("%.4g items/s", b.items_per_second);
  return "-";
}

MicroBenchmark parse_entry(const nlohmann::json& entry, const std::string& path, size_t index) {
  const auto where = "benchmarks[" + std::to_string(index) + "]";
  if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string()) {
    throw ConfigError(path, where + ".name", "expected an object with a string name");
  }
  MicroBenchmark b;
  const auto name = entry.value("run_name", entry["name"].get<std::string>());
  const auto first = name.find('/');
  b.family = name.substr(0, first);
  if (first != std::string::npos) {
    const auto second = name.find('/', first + 1);
    b.variant = name.substr(first + 1,
                            second == std::string::npos ? std::string::npos : second - first - 1);
    if (second != std::string::npos) b.argument = name.substr(second + 1);
  }
  if (entry.value("error_occurred", false)) {
    b.error = entry.value("error_message", "skipped");
    return b;
  }
  if (!entry.contains("real_time") || !entry["real_time"].is_number()) {
    throw ConfigError(path, where + ".real_time", "expected a number");
  }
  b.real_time = entry["real_time"].get<double>();
  b.time_unit = entry.value("time_unit", "ns");
  b.items_per_second = entry.value("items_per_second", 0.0);
  b.bytes_per_second = entry.value("bytes_per_second", 0.0);
  return b;
}

}  // namespace

std::vector<MicroBenchmark> read_micro_benchmarks(const std::string& path) {
  const auto json = read_json_file(path);
  if (!json.is_object() || !json.contains("benchmarks") || !json["benchmarks"].is_array()) {
    throw ConfigError(
        path, "benchmarks",
        "expected Google Benchmark JSON (--benchmark_out=FILE --benchmark_out_format=json)");
  }
  const auto& entries = json["benchmarks"];
  std::vector<MicroBenchmark> out;
  try {
    bool has_medians = false;
    for (const auto& e : entries) has_medians |= e.value("aggregate_name", "") == "median";
    for (size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      const bool aggregate = e.value("run_type", "iteration") == "aggregate";
      if (has_medians ? (aggregate && e.value("aggregate_name", "") == "median") : !aggregate) {
        out.push_back(parse_entry(e, path, i));
      }
    }
  } catch (const nlohmann::json::exception& error) {  // an entry or a field of another type
    throw ConfigError(
        path, "benchmarks",
        std::string("an entry is not as Google Benchmark writes it: ") + error.what());
  }
  if (out.empty()) throw ConfigError(path, "benchmarks", "the file lists no benchmark results");
  return out;
}

std::string micro_benchmark_markdown(const std::vector<MicroBenchmark>& benchmarks,
                                     const std::string& source) {
  std::ostringstream out;
  out << "\n## Micro-benchmarks\n\nFrom `" << source
      << "` (Google Benchmark). Speedup = the family's first variant's time / this variant's, at "
         "the "
         "same size.\n";
  std::vector<std::string> families;
  for (const auto& b : benchmarks) {
    if (families.empty() || families.back() != b.family) families.push_back(b.family);
  }
  for (const auto& family : families) {
    std::map<std::string, double> first_time;  // argument -> the first variant's time
    out << "\n### " << family
        << "\n\n| size | variant | time | throughput | speedup |\n|---|---|---|---|---|\n";
    for (const auto& b : benchmarks) {
      if (b.family != family) continue;
      if (!b.error.empty()) {
        out << "| " << b.argument << " | " << b.variant << " | skipped: " << b.error
            << " | - | - |\n";
        continue;
      }
      const auto [it, inserted] = first_time.emplace(b.argument, b.real_time);
      out << "| " << (b.argument.empty() ? "-" : b.argument) << " | " << b.variant << " | "
          << format_number("%.4g ", b.real_time) << b.time_unit << " | " << rate_text(b) << " | "
          << (inserted ? "1x (reference)" : format_number("%.2fx", it->second / b.real_time))
          << " |\n";
    }
  }
  return out.str();
}

nlohmann::json micro_benchmarks_json(const std::vector<MicroBenchmark>& benchmarks) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& b : benchmarks) {
    out.push_back({{"family", b.family},
                   {"variant", b.variant},
                   {"argument", b.argument},
                   {"real_time", b.real_time},
                   {"time_unit", b.time_unit},
                   {"items_per_second", b.items_per_second},
                   {"bytes_per_second", b.bytes_per_second},
                   {"error", b.error}});
  }
  return out;
}

}  // namespace speedbench::report
