// The run folder of a suite run, results/<suite>/<run-id>/: which one a run writes to (a new one,
// or with --resume the earlier one with the same plan) and what it already holds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace speedbench {

// The subfolder of a run folder that holds the second binary's plan.json and runs.jsonl.
inline constexpr const char* kAgainstFolder = "against";

// A new folder under results_root/<suite>/, or with `resume` the newest earlier one whose
// plan.json holds this plan's runs and that was run with --against exactly when this one is
// (`against`). Throws ConfigError when resume finds none, saying how to go on.
std::filesystem::path choose_run_folder(const std::string& suite_name, const nlohmann::json& plan,
                                        const std::string& results_root, bool resume, bool against);

// Readies the run folder. New: writes plan.json (whole or not at all). Resumed: returns the run
// indexes already recorded, after dropping an unfinished last line of runs.jsonl.
std::set<int64_t> prepare_run_folder(const std::filesystem::path& folder,
                                     const nlohmann::json& plan, const std::string& records_path);

}  // namespace speedbench
