// `speedbench compare BEFORE AFTER`: two run folders side by side (run_folder_comparison.h).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <utility>

#include "harness/cli/commands.h"
#include "harness/config/config_error.h"
#include "harness/report/run_folder_comparison.h"
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

// Opened before anything is written, so that a path that cannot be written leaves nothing.
std::unique_ptr<std::ofstream> open_output(const std::string& path, const std::string& option) {
  if (path.empty()) return nullptr;
  auto out = std::make_unique<std::ofstream>(path);
  if (!*out) throw ConfigError("command line", option, "cannot write '" + path + "'");
  return out;
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
  const auto [before_dir, after_dir] = before_and_after(args);
  const auto before = report::load_results(before_dir);
  const auto after = report::load_results(after_dir);
  const auto comparison = report::compare_folders(before, after, metric, args.tolerance);
  auto markdown = open_output(args.markdown_path, "--markdown");
  auto json = open_output(args.json_path, "--json");
  std::printf("%s", report::folder_comparison_console(comparison).c_str());
  if (markdown) {
    *markdown << report::folder_comparison_markdown(comparison);
    std::printf("markdown: %s\n", args.markdown_path.c_str());
  }
  if (json) {
    *json << report::folder_comparison_json(comparison).dump(1) << "\n";
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
