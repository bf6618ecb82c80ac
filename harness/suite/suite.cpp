// Reading a suite file (suite.h): its fields, workloads and toggles, checked; suite_expansion.cpp
// turns them into variants and the plan.
#include "harness/suite/suite.h"

#include <algorithm>
#include <limits>
#include <regex>
#include <set>

#include "harness/config/config_loader.h"
#include "harness/config/json_file_kind.h"
#include "harness/config/json_reader.h"
#include "harness/suite/suite_expansion.h"
#include "harness/techniques/registry.h"

namespace speedbench {

namespace {

const std::regex kNamePattern("[A-Za-z0-9_.=-]+");
constexpr const char* kNameRule =
    "a non-empty name of letters, digits, '_', '-', '.', '=' (not \".\" or \"..\")";

}  // namespace

bool is_valid_name(const std::string& name) {
  return std::regex_match(name, kNamePattern) && name != "." && name != "..";
}
const char* valid_name_rule() { return kNameRule; }

namespace {

std::string checked_name(JsonObjectReader& in, const std::string& key) {
  const auto name = in.get_string(key, "");
  if (!is_valid_name(name)) {
    in.fail(key, "got \"" + name + "\", expected " + kNameRule);
  }
  return name;
}

std::vector<SuiteWorkload> read_workloads(JsonObjectReader& in, const nlohmann::json& base_json) {
  const auto* list = in.raw("workloads");
  if (list == nullptr || !list->is_array() || list->empty()) {
    in.fail("workloads", "expected a non-empty list of {\"name\": ..., \"config\": {...}}");
  }
  std::vector<SuiteWorkload> workloads;
  std::set<std::string> names;
  for (size_t i = 0; i < list->size(); ++i) {
    JsonObjectReader entry(list->at(i), in.file(), "workloads[" + std::to_string(i) + "]");
    SuiteWorkload workload;
    workload.name = checked_name(entry, "name");
    entry.require_unique("name", workload.name, names);
    const auto* config = entry.raw("config");
    if (config != nullptr && !config->is_object()) {
      entry.fail("config", "expected a JSON object of TrainConfig fields");
    }
    entry.reject_unknown_keys();
    workload.config_json = base_json;
    if (config != nullptr) workload.config_json.merge_patch(*config);
    workload.config_json["workload"] = workload.name;
    workloads.push_back(std::move(workload));
  }
  return workloads;
}

std::vector<std::string> read_workload_restriction(JsonObjectReader& entry,
                                                   const std::vector<SuiteWorkload>& workloads) {
  const auto* list = entry.raw("workloads");
  if (list == nullptr) return {};
  std::vector<std::string> names;
  if (list->is_array()) {
    for (const auto& item : *list) {
      if (!item.is_string()) break;
      names.push_back(item.get<std::string>());
    }
  }
  if (!list->is_array() || list->empty() || names.size() != list->size()) {
    entry.fail("workloads", "expected a non-empty list of workload names");
  }
  for (const auto& name : names) {
    const bool known = std::any_of(workloads.begin(), workloads.end(),
                                   [&](const SuiteWorkload& w) { return w.name == name; });
    if (!known) entry.fail("workloads", "\"" + name + "\" is not one of the suite's workloads");
  }
  return names;
}

const nlohmann::json& object_patch(JsonObjectReader& entry, const std::string& key) {
  const auto* patch = entry.raw(key);
  if (patch == nullptr || !patch->is_object()) {
    entry.fail(key, "expected a JSON object of TrainConfig fields");
  }
  return *patch;
}

std::vector<Toggle> read_technique_toggles(JsonObjectReader& in,
                                           const std::vector<SuiteWorkload>& workloads) {
  const auto* list = in.raw("techniques");
  if (list == nullptr || !list->is_array() || list->empty()) {
    in.fail(
        "techniques",
        "expected a non-empty list of {\"id\": technique id, \"config\": {...}} for this design");
  }
  std::vector<Toggle> toggles;
  std::set<std::string> ids;
  for (size_t i = 0; i < list->size(); ++i) {
    const auto path = "techniques[" + std::to_string(i) + "]";
    JsonObjectReader entry(list->at(i), in.file(), path);
    Toggle toggle;
    toggle.name = entry.get_string("id", "");
    if (find_technique(toggle.name) == nullptr) {
      entry.fail("id",
                 "\"" + toggle.name + "\" is not a technique id (`speedbench list` shows them)");
    }
    entry.require_unique("id", toggle.name, ids);
    const bool has_on = entry.raw("config") != nullptr;
    const bool has_off = entry.raw("off_config") != nullptr;
    if (has_on == has_off) {
      entry.fail("config",
                 "give exactly one of \"config\" (turns the technique on) or "
                 "\"off_config\" (turns off a technique that is on by default)");
    }
    toggle.turns_off = has_off;
    toggle.patch = object_patch(entry, has_off ? "off_config" : "config");
    toggle.workloads = read_workload_restriction(entry, workloads);
    toggle.source = path + " (" + toggle.name + ")";
    entry.reject_unknown_keys();
    toggles.push_back(std::move(toggle));
  }
  return toggles;
}

std::vector<Toggle> read_variants(JsonObjectReader& in,
                                  const std::vector<SuiteWorkload>& workloads) {
  const auto* list = in.raw("variants");
  if (list == nullptr || !list->is_array() || list->size() < 2) {
    in.fail("variants",
            "expected a list of at least two {\"name\": ..., \"config\": {...}}; the "
            "first is the baseline");
  }
  std::vector<Toggle> toggles;
  std::set<std::string> names;
  for (size_t i = 0; i < list->size(); ++i) {
    const auto path = "variants[" + std::to_string(i) + "]";
    JsonObjectReader entry(list->at(i), in.file(), path);
    Toggle toggle;
    toggle.name = checked_name(entry, "name");
    entry.require_unique("name", toggle.name, names);
    toggle.patch = entry.raw("config") ? object_patch(entry, "config") : nlohmann::json::object();
    toggle.workloads = read_workload_restriction(entry, workloads);
    if (i == 0 && !toggle.workloads.empty()) {
      entry.fail("workloads", "the first variant is every workload's baseline: it runs on all");
    }
    toggle.source = path + " (" + toggle.name + ")";
    entry.reject_unknown_keys();
    toggles.push_back(std::move(toggle));
  }
  return toggles;
}

// "techniques.ddp_world_size" -> {"techniques": {"ddp_world_size": value}}
nlohmann::json patch_at(const std::string& dotted_field, const nlohmann::json& value) {
  nlohmann::json patch = value;
  std::string rest = dotted_field;
  while (!rest.empty()) {
    const auto dot = rest.rfind('.');
    const auto key = dot == std::string::npos ? rest : rest.substr(dot + 1);
    patch = nlohmann::json{{key, patch}};
    rest = dot == std::string::npos ? "" : rest.substr(0, dot);
  }
  return patch;
}

std::vector<Toggle> read_sweep(JsonObjectReader& in) {
  auto sweep = in.child("sweep");
  const auto field = sweep.get_string("field", "");
  if (!std::regex_match(field, std::regex("[a-z_]+(\\.[a-z_]+)*"))) {
    sweep.fail("field",
               "got \"" + field + "\", expected a config field path such as \"batch_size\"");
  }
  const auto* values = sweep.raw("values");
  if (values == nullptr || !values->is_array() || values->size() < 2) {
    sweep.fail("values", "expected a list of at least two values; the first is the baseline");
  }
  sweep.reject_unknown_keys();
  const auto leaf = field.substr(field.rfind('.') == std::string::npos ? 0 : field.rfind('.') + 1);
  std::vector<Toggle> toggles;
  for (size_t i = 0; i < values->size(); ++i) {
    const auto& value = values->at(i);
    Toggle toggle;
    toggle.name = leaf + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    toggle.patch = patch_at(field, value);
    toggle.source = "sweep.values[" + std::to_string(i) + "]";
    toggles.push_back(std::move(toggle));
  }
  return toggles;
}

// --base merged into the file's base. The suite's description says so, and with it the report
// and plan.json: the records' configs alone would show it only field by field.
void apply_base_patch(Suite& suite, nlohmann::json& base_json, const nlohmann::json& patch) {
  if (patch.is_null()) return;
  if (!patch.is_object() || patch.empty()) {
    throw ConfigError("command line", "--base",
                      "got " + patch.dump() +
                          "; expected a JSON object of TrainConfig fields, e.g. "
                          "'{\"techniques\": {\"host_memory_reuse\": true}}'");
  }
  if (patch.contains("device")) {
    throw ConfigError("command line", "--base",
                      "sets device; a suite's device is its own (\"" + suite.device +
                          "\"): run a suite of the other device instead");
  }
  base_json.merge_patch(patch);
  suite.base_patch = patch.dump();
  suite.description += std::string(suite.description.empty() ? "" : " ") +
                       "Run with its base changed by --base " + suite.base_patch + ".";
}

}  // namespace

Suite suite_from_json(const nlohmann::json& json, const std::string& file,
                      const SuiteSelection& selection) {
  JsonObjectReader in(json, file, "");
  Suite suite;
  suite.file = file;
  suite.name = checked_name(in, "name");
  suite.description = in.get_string("description", "");
  suite.device = in.get_choice("device", "cpu", {"cpu", "cuda"});
  suite.design =
      in.get_choice("design", "grid", {"one_at_a_time", "leave_one_out", "grid", "scaling"});
  const auto order = in.get_choice("order", "interleaved", {"interleaved", "shuffled"});
  suite.repetitions = in.get_int(
      "repetitions", suite.device == "cuda" ? kDefaultRepetitionsCuda : kDefaultRepetitionsCpu, 1,
      1000);
  if (selection.repetitions > 0) suite.repetitions = selection.repetitions;
  const auto* base = in.raw("base");
  nlohmann::json base_json = base ? *base : nlohmann::json::object();
  if (!base_json.is_object()) in.fail("base", "expected a JSON object of TrainConfig fields");
  if (base_json.contains("device") && base_json["device"] != suite.device) {
    in.fail("base", "device " + base_json["device"].dump() + " differs from the suite's device \"" +
                        suite.device + "\"; set the suite's \"device\" instead");
  }
  apply_base_patch(suite, base_json, selection.base_patch);
  base_json["device"] = suite.device;
  // An error in a variant's config may come from --base rather than the file: say it was in play.
  try {
    const auto workloads = read_workloads(in, base_json);
    std::vector<Toggle> toggles;
    if (is_technique_design(suite.design)) toggles = read_technique_toggles(in, workloads);
    if (suite.design == "grid") toggles = read_variants(in, workloads);
    if (suite.design == "scaling") toggles = read_sweep(in);
    in.reject_unknown_keys();  // also rejects keys that belong to another design
    expand_suite(suite, workloads, std::move(toggles), selection, order);
  } catch (const ConfigError& e) {
    if (suite.base_patch.empty()) throw;
    throw ConfigError(
        e.file(), e.field(),
        e.message() + " (in the suite as --base " + suite.base_patch + " changed it)");
  }
  return suite;
}

Suite load_suite(const std::string& path, const SuiteSelection& selection) {
  const auto json = read_json_file_of_kind(path, JsonFileKind::kSuite);
  return suite_from_json(json, path, selection);
}

nlohmann::json suite_plan_to_json(const Suite& suite) {
  nlohmann::json comparisons = nlohmann::json::array();
  for (const auto& c : suite.comparisons) {
    comparisons.push_back({{"workload", c.workload},
                           {"label", c.label},
                           {"baseline", c.baseline},
                           {"variant", c.variant}});
  }
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& run : suite.plan) {
    runs.push_back({{"index", run.index},
                    {"workload", run.workload},
                    {"variant", run.variant},
                    {"repetition", run.repetition},
                    {"config", run.config_json}});
  }
  return {{"suite", suite.name},        {"description", suite.description},
          {"file", suite.file},         {"device", suite.device},
          {"design", suite.design},     {"repetitions", suite.repetitions},
          {"comparisons", comparisons}, {"runs", runs}};
}

nlohmann::json checked_plan_json(nlohmann::json plan, const std::string& file) {
  JsonObjectReader in(plan, file, "");
  // The fields the report reads: description, design, repetitions, file (the suite's path).
  in.get_string("description", "");
  in.get_string("design", "");
  in.get_string("file", "");
  in.get_int("repetitions", 0, 0, std::numeric_limits<int64_t>::max());
  const auto* runs = in.raw("runs");
  if (runs != nullptr && !runs->is_array()) in.fail("runs", "expected a list of planned runs");
  const auto* comparisons = in.raw("comparisons");
  if (comparisons == nullptr || !comparisons->is_array()) {
    in.fail("comparisons", "expected a list of comparisons, as `speedbench run` writes it");
  }
  for (size_t i = 0; i < comparisons->size(); ++i) {
    JsonObjectReader entry(comparisons->at(i), file, "comparisons[" + std::to_string(i) + "]");
    for (const char* key : {"workload", "label", "baseline", "variant"}) {
      if (entry.get_string(key, "").empty()) entry.fail(key, "expected a name");
    }
  }
  std::vector<std::string> null_keys;
  for (const auto& [key, value] : plan.items()) {
    if (value.is_null()) null_keys.push_back(key);
  }
  for (const auto& key : null_keys) plan.erase(key);
  return plan;
}

std::vector<Comparison> comparisons_from_plan_json(const nlohmann::json& plan) {
  std::vector<Comparison> comparisons;
  for (const auto& c : plan.at("comparisons")) {
    comparisons.push_back({c.at("workload").get<std::string>(), c.at("label").get<std::string>(),
                           c.at("baseline").get<std::string>(),
                           c.at("variant").get<std::string>()});
  }
  return comparisons;
}

}  // namespace speedbench
