// Folds a Google Benchmark JSON file (bench/speedbench_micro --benchmark_out=F
// --benchmark_out_format=json) into a report: per family (tip mechanism), each variant's time
// and throughput per size, and its speedup over the family's first variant (the "off" side).
// Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace speedbench::report {

struct MicroBenchmark {
  std::string family;    // "optimizer_step"
  std::string variant;   // "adamw_fused"
  std::string argument;  // "8" (the size; "" when none)
  double real_time = 0;  // per iteration, in time_unit
  std::string time_unit;
  double items_per_second = 0;
  double bytes_per_second = 0;
  std::string error;  // a skipped case's reason (e.g. no CUDA device)
};

// Reads the file; with --benchmark_repetitions the median aggregates are used. A file that is
// not Google Benchmark JSON is a ConfigError naming the file and the field.
std::vector<MicroBenchmark> read_micro_benchmarks(const std::string& path);

std::string micro_benchmark_markdown(const std::vector<MicroBenchmark>& benchmarks,
                                     const std::string& source);
nlohmann::json micro_benchmarks_json(const std::vector<MicroBenchmark>& benchmarks);

}  // namespace speedbench::report
