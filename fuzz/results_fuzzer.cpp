// libFuzzer target: bytes -> a run folder (runs.jsonl, and plan.json after a '\x01' byte) -> the
// report, the claims' verdicts and a comparison of the folder with itself, as `speedbench
// report`, `verify` and `compare` make them. Records and plans are written by speedbench, but a
// folder can be damaged, hand-edited or made by another version: bad input may only end as a
// ConfigError (one clear message); any other exception, a crash or a sanitizer report is a
// finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/config/config_error.h"
#include "harness/report/claims.h"
#include "harness/report/report_writer.h"
#include "harness/report/run_folder_comparison.h"

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

}  // namespace

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
