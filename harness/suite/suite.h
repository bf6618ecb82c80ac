// A suite: workloads, a base config, and a design that turns technique toggles into variants,
// repeated and interleaved into a plan, plus the comparisons the report will make.
//
//   {"name": "smoke", "description": "...", "device": "cpu", "repetitions": 3,
//    "design": "one_at_a_time",            one_at_a_time | leave_one_out | grid | scaling
//    "order": "interleaved",               interleaved (A B C A B C) | shuffled (each repetition
//                                          in its own seeded random order)
//    "base": {TrainConfig fields shared by every run},
//    "workloads": [{"name": "resnet8", "config": {fields merged over base}}],
//    "techniques": [{"id": "amp", "config": {...}, "workloads": ["resnet8"]},    one_at_a_time,
//                   {"id": "debug_off", "off_config": {...}}],                  leave_one_out
//    "variants": [{"name": "all_off", "config": {...}}, ...],   grid: the first is the baseline
//    "sweep": {"field": "batch_size", "values": [64, 128, 256]}} scaling: the first is the baseline
//
// A technique's `config` turns it on; `off_config` turns off one that is on by default. Each is
// checked: the variant must really switch the technique (by the registry), never be a label.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/config/train_config.h"

namespace speedbench {

// One variant of one workload: a complete config.
struct SuiteVariant {
  std::string workload;
  std::string name;
  nlohmann::json config_json;  // resolved (base + workload + variant)
  TrainConfig config;
};

// What the report compares: `variant` against `baseline`, both of `workload`. `label` names the
// effect measured: a technique id, "all" (every technique at once) or a grid/scaling variant.
struct Comparison {
  std::string workload;
  std::string label;
  std::string baseline;
  std::string variant;
};

struct PlannedRun {
  int64_t index = 0;  // position in the plan
  std::string workload;
  std::string variant;
  int64_t repetition = 0;
  nlohmann::json config_json;  // the resolved config, this repetition's seed included
  TrainConfig config;
};

// A suite that does not say how often to repeat gets DESIGN.md's minimum for its device: enough
// for a bootstrap interval on a CPU, and on a GPU, whose runs vary less, the 5 a side below
// which the interval undercovers and the U test cannot reach p < 0.05.
inline constexpr int64_t kDefaultRepetitionsCpu = 3;
inline constexpr int64_t kDefaultRepetitionsCuda = 5;

struct Suite {
  std::string name;
  std::string description;
  std::string file;
  std::string device = "cpu";
  std::string design = "grid";
  // Runs per variant. Unset in the file: kDefaultRepetitionsCpu or kDefaultRepetitionsCuda.
  int64_t repetitions = 1;
  std::vector<SuiteVariant> variants;
  std::vector<Comparison> comparisons;
  std::vector<PlannedRun> plan;
  std::string base_patch;  // --base as given (compact JSON), or "" where the file's base ran
};

// What of a suite to run, and how often. --only / --exclude: technique ids (one_at_a_time,
// leave_one_out) or variant names (grid, scaling) to keep or drop; a workload's baseline runs
// where something is left to compare with it (a workload nothing applies to is left out).
// --repetitions: runs per variant instead of the file's (0: the file's).
// --base: a JSON merge patch on the file's base config (null: none), which the workloads'
// configs and the toggles still override: `--base '{"techniques": {"host_memory_reuse": true}}'`
// runs a suite with the host allocator's effect taken out of every variant (page_fault_shifts.h).
struct SuiteSelection {
  std::vector<std::string> only;
  std::vector<std::string> exclude;
  int64_t repetitions = 0;
  nlohmann::json base_patch = nullptr;
};

// Loads and validates a suite: every variant's config is checked before anything runs.
Suite load_suite(const std::string& path, const SuiteSelection& selection = {});
Suite suite_from_json(const nlohmann::json& json, const std::string& file,
                      const SuiteSelection& selection = {});

// The plan and comparisons as JSON (written as plan.json beside the records: what the report
// compares, and what --resume checks before it continues a run).
nlohmann::json suite_plan_to_json(const Suite& suite);
std::vector<Comparison> comparisons_from_plan_json(const nlohmann::json& plan);
// A plan.json as the report reads it (`file` names it in errors): an object whose
// "comparisons" is a list of objects with a workload, label, baseline and variant (names),
// whose "runs" is a list, and whose "description", "design" and "repetitions" (where present)
// are strings and a whole number. A hand-edited or damaged plan is a ConfigError naming the
// file and the field, not a JSON library's message halfway through a report. Returns the plan
// without its null members: null stands for absent here as in configs and suites, and the report
// reads an absent key's default.
nlohmann::json checked_plan_json(nlohmann::json plan, const std::string& file);

// Suite, workload, variant and run names become folder and file names: a conservative rule keeps
// every output under the results folder (no "/", no "..").
bool is_valid_name(const std::string& name);
const char* valid_name_rule();

}  // namespace speedbench
