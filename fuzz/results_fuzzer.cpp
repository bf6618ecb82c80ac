// libFuzzer target: bytes -> a run folder (runs.jsonl, and plan.json after a '\x01' byte) -> the
// report, the claims' verdicts and a comparison of the folder with itself, as `speedbench
// report`, `verify` and `compare` make them. Records and plans are written by speedbench, but a
// folder can be damaged, hand-edited or made by another version: bad input may only end as a
// ConfigError (one clear message); any other exception, a crash or a sanitizer report is a
// finding. Byte mutations seldom keep a record's JSON valid, so half the mutations are of the
// JSON itself: one value of one line replaced by a value of another type or an edge value.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "harness/config/config_error.h"
#include "harness/report/claims.h"
#include "harness/report/report_writer.h"
#include "harness/report/run_folder_comparison.h"
#include "json_mutation.h"

namespace {

namespace fs = std::filesystem;

// One folder per process, rewritten for every input.
const fs::path& run_folder() {
  static const fs::path folder = [] {
    auto path = fs::temp_directory_path() / ("speedbench-results-fuzz-" + std::to_string(getpid()));
    fs::create_directories(path);
    return path;
  }();
  return folder;
}

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

// Half the time libFuzzer's byte mutations; else one JSON value of one record (or of the plan)
// changed, the text kept valid JSON.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (rng() % 2 == 0) return LLVMFuzzerMutate(data, size, max_size);
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find('\x01');
  auto parts = lines_of(input.substr(0, split));
  if (split != std::string::npos) parts.push_back("\x01" + input.substr(split + 1));
  if (parts.empty()) return LLVMFuzzerMutate(data, size, max_size);
  auto& part = parts[rng() % parts.size()];
  const bool plan = !part.empty() && part[0] == '\x01';
  const auto mutated = speedbench::fuzz::mutate_json_text(plan ? part.substr(1) : part, rng);
  if (!mutated) return LLVMFuzzerMutate(data, size, max_size);
  part = (plan ? "\x01" : "") + *mutated;
  std::string output;
  for (const auto& p : parts) output += (p[0] == '\x01' || output.empty() ? "" : "\n") + p;
  if (output.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, output.data(), output.size());
  return output.size();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find('\x01');
  const auto& folder = run_folder();
  write(folder / "runs.jsonl", input.substr(0, split));
  fs::remove(folder / "plan.json");
  if (split != std::string::npos) write(folder / "plan.json", input.substr(split + 1));
  try {
    namespace report = speedbench::report;
    const auto results = report::load_results(folder.string());
    const auto comparisons = report::compare(results);
    report::Claim claim;  // one claim on any workload, as suites/claims.json's
    claim.id = "fuzz";
    claim.technique = comparisons.empty() ? "none" : comparisons.front().comparison.label;
    claim.metric = "throughput";
    claim.direction = ">=";
    claim.threshold = 1.1;
    claim.source = "fuzz";
    const std::vector<report::Claim> claims = {claim};
    const auto verdicts = report::verify_claims(claims, comparisons, results);
    const report::ReportInputs inputs{results, comparisons, claims, verdicts};
    report::markdown_report(inputs);
    report::summary_json(inputs).dump();
    report::console_summary(inputs);
    const auto itself =
        report::compare_folders(results, results, *report::find_metric("throughput"), 0.05);
    report::folder_comparison_markdown(itself);
    report::folder_comparison_json(itself).dump();
  } catch (const speedbench::ConfigError&) {
    // the expected answer to bad input
  }
  return 0;  // anything else escapes and libFuzzer reports it
}
