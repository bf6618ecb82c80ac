#include "harness/suite/run_folder.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <vector>

#include "harness/config/config_error.h"
#include "harness/results/records_file.h"
#include "harness/suite/run_one.h"

namespace speedbench {

namespace fs = std::filesystem;

fs::path choose_run_folder(const std::string& suite_name, const nlohmann::json& plan,
                           const std::string& results_root, bool resume, bool against) {
  const auto suite_root = fs::path(results_root) / suite_name;
  if (!resume) return suite_root / make_run_id();
  std::vector<fs::path> candidates;
  if (fs::is_directory(suite_root)) {
    for (const auto& entry : fs::directory_iterator(suite_root)) {
      if (fs::exists(entry.path() / "plan.json")) candidates.push_back(entry.path());
    }
  }
  std::sort(candidates.rbegin(), candidates.rend());  // run ids sort by time: newest first
  std::string other_kind;  // a folder with this plan, run the other way (with or without --against)
  for (const auto& folder : candidates) {
    std::ifstream in(folder / "plan.json");
    const auto earlier = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (earlier.is_discarded() || earlier.value("runs", nlohmann::json()) != plan["runs"]) continue;
    if (fs::exists(folder / kAgainstFolder / "plan.json") == against) return folder;
    if (other_kind.empty()) other_kind = folder.string();
  }
  std::string hint = "; run without --resume to start a new one";
  if (!other_kind.empty()) {
    hint = "; " + other_kind +
           (against ? " has it but was run without --against: resume it without --against"
                    : " has it but was run with --against: resume it with --against BINARY");
  }
  throw ConfigError("command line", "--resume",
                    "no earlier run of suite " + suite_name + " under " + suite_root.string() +
                        " has this plan (same suite file, repetitions, --only/--exclude)" +
                        (against ? " and was run with --against" : "") + hint);
}

std::set<int64_t> prepare_run_folder(const fs::path& folder, const nlohmann::json& plan,
                                     const std::string& records_path) {
  fs::create_directories(folder);
  std::set<int64_t> recorded;
  if (!fs::exists(folder / "plan.json")) {
    write_json_file_whole(folder / "plan.json", plan);
    return recorded;
  }
  if (!fs::exists(records_path)) return recorded;
  if (drop_partial_last_line(records_path)) {
    std::fprintf(stderr, "resuming: dropped an unfinished last line of %s\n", records_path.c_str());
  }
  for (const auto& record : read_records(records_path)) recorded.insert(record.run_index);
  return recorded;
}

}  // namespace speedbench
