// `speedbench report DIR` and `speedbench verify DIR`: records to comparisons, claims to verdicts.
#include <cstdio>
#include <filesystem>

#include "harness/cli/commands.h"
#include "harness/config/config_error.h"
#include "harness/report/claims.h"
#include "harness/report/micro_benchmarks.h"
#include "harness/report/report_writer.h"
#include "harness/results/records_file.h"

namespace speedbench {

namespace {

// The claims of --claims FILE (which must be there), else of kDefaultClaimsPath: verify needs
// them, report goes on without them and says so.
std::vector<report::Claim> claims_for(const ReportArgs& args) {
  if (!args.claims_path.empty()) return report::load_claims(args.claims_path);
  if (std::filesystem::exists(kDefaultClaimsPath)) return report::load_claims(kDefaultClaimsPath);
  const std::string where = std::string(kDefaultClaimsPath) + " under " +
                            std::filesystem::current_path().string() +
                            " (run from the clone's root, or name one with --claims FILE)";
  if (args.claims_required)
    throw ConfigError("command line", "--claims", "no claims file at " + where);
  std::fprintf(stderr, "note: no claims file at %s; the report has no verdicts\n", where.c_str());
  return {};
}

// Ratios between runs of different machines or builds measure those too: say so on the console
// as well as in report.md.
void warn_if_environments_differ(const report::Results& results) {
  const auto differences = report::environment_differences(results);
  if (differences.empty()) return;
  std::fprintf(stderr,
               "warning: the records come from more than one machine or build (they differ in "
               "%s); report.md's Environment section counts the records of each\n",
               key_names(differences).c_str());
}

}  // namespace

int command_report(const ReportArgs& args) {
  const auto results = report::load_results(args.results_dir);
  const auto folder = std::filesystem::path(results.folder);
  // Micro-benchmarks: --micro FILE, or the run folder's micro.json when there is one.
  auto micro_path = args.micro_path;
  if (micro_path.empty() && std::filesystem::exists(folder / "micro.json"))
    micro_path = (folder / "micro.json").string();
  std::vector<report::MicroBenchmark> micro;
  if (!micro_path.empty()) micro = report::read_micro_benchmarks(micro_path);
  const auto comparisons = report::compare(results);
  const auto claims = claims_for(args);
  const auto verdicts = report::verify_claims(claims, comparisons, results);
  const report::ReportInputs inputs{results, comparisons, claims, verdicts};
  warn_if_environments_differ(results);

  const auto markdown_path = (folder / "report.md").string();
  const auto json_path = (folder / "summary.json").string();
  auto summary = report::summary_json(inputs);
  auto markdown = report::markdown_report(inputs);
  if (!micro.empty()) {
    markdown += report::micro_benchmark_markdown(micro, micro_path);
    summary["micro_benchmarks"] = report::micro_benchmarks_json(micro);
  }
  write_file_whole(markdown_path, markdown);
  write_json_file_whole(json_path, summary);
  std::printf("%s", report::console_summary(inputs).c_str());
  std::printf("report: %s\nsummary: %s\n", markdown_path.c_str(), json_path.c_str());
  if (!results.second_build_folder.empty()) {
    std::printf(
        "note: this build's records only; the second build's are in %s (`speedbench compare %s` "
        "sets the two side by side)\n",
        results.second_build_folder.c_str(), results.folder.c_str());
  }
  return 0;
}

int command_verify(const ReportArgs& args) {
  const auto results = report::load_results(args.results_dir);
  const auto comparisons = report::compare(results);
  const auto claims = claims_for(args);
  const auto verdicts = report::verify_claims(claims, comparisons, results);
  warn_if_environments_differ(results);
  std::printf("%s\n", report::verdict_table(verdicts).c_str());
  int gating = 0, failing = 0;
  for (const auto& v : verdicts) {
    if (!v.gates) continue;
    gating += 1;
    if (v.verdict != "confirmed") {
      failing += 1;
      std::printf("gate failed: %s is %s%s%s\n", v.claim->id.c_str(), v.verdict.c_str(),
                  v.reason.empty() ? "" : " - ", v.reason.c_str());
    }
  }
  if (gating == 0) {  // say so: "0 of 0 confirmed" reads like a pass
    std::printf(
        "no claim gates these results (device %s, suite %s): verify checked nothing (a claim "
        "gates with \"gate\": true on its device, and with \"gate_suite\" only that suite)\n",
        results.device.c_str(), results.suite.c_str());
    return 0;
  }
  std::printf("%d of %d gating claims (device %s, suite %s) confirmed\n", gating - failing, gating,
              results.device.c_str(), results.suite.c_str());
  return failing > 0 ? 1 : 0;
}

}  // namespace speedbench
