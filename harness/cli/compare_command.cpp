// `speedbench compare BEFORE AFTER`: two run folders side by side (run_folder_comparison.h).
#include <cstdio>
#include <filesystem>
#include <utility>

#include "harness/cli/commands.h"
#include "harness/config/config_error.h"
#include "harness/report/run_folder_comparison.h"
#include "harness/results/records_file.h"
#include "harness/suite/suite_runner.h"

namespace speedbench {

namespace {

const report::MetricInfo& comparable_metric(const std::string& id) {
  const auto* metric = report::find_metric(id);
  if (metric == nullptr || !metric->ratio) {
    std::string names;
    for (const auto& name : report::comparable_metric_ids()) {
      names += (names.empty() ? "" : ", ") + name;
    }
    throw ConfigError(
        "command line", "--metric",
        "expected a ratio metric (" + names + "), got '" + id + "'" +
            (metric != nullptr ? " (a difference: it has no relative tolerance)" : ""));
  }
  return *metric;
}

// BEFORE and AFTER as given; or, given one folder, the two builds of a `run --against`: its
// against/ (the second build's records) before, the folder itself after.
std::pair<std::string, std::string> before_and_after(const CompareArgs& args) {
  if (!args.after_dir.empty()) return {args.before_dir, args.after_dir};
  const auto against = std::filesystem::path(args.before_dir) / kAgainstFolder;
  if (!std::filesystem::is_directory(against)) {
    throw ConfigError("command line", "after",
                      "missing: one folder is compared alone only when it is a run --against "
                      "folder, with the second build's records in its against/, and " +
                          args.before_dir + " has none; give BEFORE and AFTER");
  }
  return {against.string(), args.before_dir};
}

}  // namespace

int command_compare(const CompareArgs& args) {
  const auto& metric = comparable_metric(args.metric);
  check_file_to_overwrite(args.markdown_path, "--markdown");  // before reading any records
  check_file_to_overwrite(args.json_path, "--json");
  if (!args.markdown_path.empty() && !args.json_path.empty() &&
      std::filesystem::weakly_canonical(args.markdown_path) ==
          std::filesystem::weakly_canonical(args.json_path)) {
    throw ConfigError("command line", "--json",
                      "got \"" + args.json_path +
                          "\", the --markdown file too (the JSON would "
                          "overwrite the markdown); expected two paths");
  }
  const auto [before_dir, after_dir] = before_and_after(args);
  const auto before = report::load_results(before_dir);
  const auto after = report::load_results(after_dir);
  const auto comparison = report::compare_folders(before, after, metric, args.tolerance);
  std::printf("%s", report::folder_comparison_console(comparison).c_str());
  // Each written whole (a full disk leaves no half file), after both paths were checked.
  if (!args.markdown_path.empty()) {
    write_file_whole(args.markdown_path, report::folder_comparison_markdown(comparison));
    std::printf("markdown: %s\n", args.markdown_path.c_str());
  }
  if (!args.json_path.empty()) {
    write_json_file_whole(args.json_path, report::folder_comparison_json(comparison));
    std::printf("json: %s\n", args.json_path.c_str());
  }
  const int regressed = comparison.count("regressed"), failed = comparison.count("failed");
  if (args.gate && regressed + failed > 0) {
    std::printf(
        "gate failed: %d variant(s) regressed by more than %g%% in %s, %d failed (no ok "
        "run after)\n",
        regressed, args.tolerance * 100, metric.id.c_str(), failed);
    return 1;
  }
  return 0;
}

}  // namespace speedbench
