#include "harness/suite/suite.h"

#include <algorithm>
#include <random>
#include <regex>
#include <set>

#include "harness/config/config_loader.h"
#include "harness/config/json_reader.h"
#include "harness/techniques/registry.h"

namespace speedbench {

namespace {

const std::regex kNamePattern("[A-Za-z0-9_.=-]+");
constexpr const char* kNameRule =
    "a non-empty name of letters, digits, '_', '-', '.', '=' (not \".\" or \"..\")";

// A change to a workload's config: a technique toggle (one_at_a_time, leave_one_out) or a grid
// or scaling variant.
struct Toggle {
  std::string name;                    // technique id or variant name
  nlohmann::json patch;                // merged over the workload's config
  bool turns_off = false;              // technique on by default; the patch turns it off
  std::vector<std::string> workloads;  // empty: every workload
  std::string source;                  // where it is defined, for error messages
};

struct SuiteWorkload {
  std::string name;
  nlohmann::json config_json;
};

nlohmann::json merged(nlohmann::json base, const nlohmann::json& patch) {
  base.merge_patch(patch);
  return base;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

bool applies_to(const Toggle& toggle, const std::string& workload) {
  return toggle.workloads.empty() || contains(toggle.workloads, workload);
}

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
    workload.config_json = merged(base_json, config ? *config : nlohmann::json::object());
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

// Keeps the toggles --only/--exclude select; `keep_first` protects a grid or scaling baseline.
std::vector<Toggle> select(std::vector<Toggle> toggles, const SuiteSelection& selection,
                           bool keep_first) {
  for (const auto* list : {&selection.only, &selection.exclude}) {
    for (const auto& name : *list) {
      const bool known = std::any_of(toggles.begin(), toggles.end(),
                                     [&](const Toggle& t) { return t.name == name; });
      if (!known) {
        std::string names;
        for (const auto& t : toggles) names += (names.empty() ? "" : ", ") + t.name;
        throw ConfigError("command line", list == &selection.only ? "--only" : "--exclude",
                          "\"" + name + "\" is not in this suite; it has: " + names);
      }
    }
  }
  std::vector<Toggle> kept;
  for (size_t i = 0; i < toggles.size(); ++i) {
    const auto& name = toggles[i].name;
    const bool baseline = keep_first && i == 0;
    if (!baseline && !selection.only.empty() && !contains(selection.only, name)) continue;
    if (!baseline && contains(selection.exclude, name)) continue;
    kept.push_back(toggles[i]);
  }
  return kept;
}

class SuiteBuilder {
 public:
  SuiteBuilder(Suite& suite, std::string file) : suite_(suite), file_(std::move(file)) {}

  void add_variant(const SuiteWorkload& workload, const std::string& name,
                   const nlohmann::json& config_json, const std::string& source) {
    SuiteVariant variant;
    variant.workload = workload.name;
    variant.name = name;
    variant.config_json = config_json;
    try {
      variant.config = train_config_from_json(config_json, file_);
    } catch (const ConfigError& error) {
      // Name the variant too: the bad value may come from base, the workload or the variant.
      throw ConfigError(file_, source + " on workload " + workload.name + ": " + error.field(),
                        error.message());
    }
    if (variant.config.device != suite_.device) {
      throw ConfigError(file_, source + " on workload " + workload.name + ": device",
                        "got \"" + variant.config.device + "\" in a suite for device \"" +
                            suite_.device + "\"; set the suite's \"device\" instead");
    }
    suite_.variants.push_back(std::move(variant));
  }

  const TrainConfig& last() const { return suite_.variants.back().config; }

  void compare(const SuiteWorkload& workload, const std::string& label, const std::string& baseline,
               const std::string& variant) {
    suite_.comparisons.push_back({workload.name, label, baseline, variant});
  }

  // A technique variant must really switch the technique, never be a label.
  void check_switches(const Toggle& toggle, const TrainConfig& reference,
                      const TrainConfig& variant, const SuiteWorkload& workload) const {
    const auto* info = find_technique(toggle.name);
    const bool on_before = info->is_on(reference);
    const bool on_after = info->is_on(variant);
    if (on_before == on_after || on_after == toggle.turns_off) {
      throw ConfigError(file_, toggle.source,
                        std::string("on workload ") + workload.name + " this config leaves " +
                            info->id + " " + (on_before ? "on" : "off") + " (" +
                            info->config_field + "); expected it to turn it " +
                            (toggle.turns_off ? "off" : "on"));
    }
  }

 private:
  Suite& suite_;
  std::string file_;
};

void expand_one_at_a_time(SuiteBuilder& out, const SuiteWorkload& workload,
                          const std::vector<Toggle>& toggles) {
  out.add_variant(workload, "baseline", workload.config_json, "base");
  const TrainConfig baseline = out.last();
  for (const auto& toggle : toggles) {
    if (!applies_to(toggle, workload.name)) continue;
    const auto name = toggle.turns_off ? "without_" + toggle.name : toggle.name;
    out.add_variant(workload, name, merged(workload.config_json, toggle.patch), toggle.source);
    out.check_switches(toggle, baseline, out.last(), workload);
    if (toggle.turns_off) {
      out.compare(workload, toggle.name, name, "baseline");
    } else {
      out.compare(workload, toggle.name, "baseline", name);
    }
  }
}

void expand_leave_one_out(SuiteBuilder& out, const SuiteWorkload& workload,
                          const std::vector<Toggle>& toggles) {
  // all_on: every toggle applied; without_<id>: all but that one; baseline: none (every
  // technique off, those on by default included).
  auto with_all_except = [&](const std::string& skipped, bool invert_all) {
    auto config = workload.config_json;
    for (const auto& toggle : toggles) {
      if (!applies_to(toggle, workload.name)) continue;
      const bool apply = toggle.turns_off ? (invert_all || toggle.name == skipped)
                                          : (!invert_all && toggle.name != skipped);
      if (apply) config.merge_patch(toggle.patch);
    }
    return config;
  };
  out.add_variant(workload, "baseline", with_all_except("", true), "base (every technique off)");
  out.add_variant(workload, "all_on", with_all_except("", false), "all_on");
  const TrainConfig all_on = out.last();
  out.compare(workload, "all", "baseline", "all_on");
  for (const auto& toggle : toggles) {
    if (!applies_to(toggle, workload.name)) continue;
    const auto name = "without_" + toggle.name;
    out.add_variant(workload, name, with_all_except(toggle.name, false), toggle.source);
    // all_on must have the technique on, and leaving it out must turn it off.
    out.check_switches(Toggle{toggle.name, {}, true, {}, toggle.source}, all_on, out.last(),
                       workload);
    out.compare(workload, toggle.name, name, "all_on");
  }
}

void expand_in_order(SuiteBuilder& out, const SuiteWorkload& workload,
                     const std::vector<Toggle>& toggles) {
  const auto& baseline = toggles.front();
  out.add_variant(workload, baseline.name, merged(workload.config_json, baseline.patch),
                  baseline.source);
  for (size_t i = 1; i < toggles.size(); ++i) {
    if (!applies_to(toggles[i], workload.name)) continue;
    out.add_variant(workload, toggles[i].name, merged(workload.config_json, toggles[i].patch),
                    toggles[i].source);
    out.compare(workload, toggles[i].name, baseline.name, toggles[i].name);
  }
}

void build_plan(Suite& suite, const std::string& order) {
  std::vector<size_t> positions(suite.variants.size());
  for (int64_t rep = 0; rep < suite.repetitions; ++rep) {
    for (size_t i = 0; i < positions.size(); ++i) positions[i] = i;
    if (order == "shuffled") {
      std::mt19937_64 rng(static_cast<uint64_t>(rep));
      std::shuffle(positions.begin(), positions.end(), rng);
    }
    for (const auto position : positions) {
      const auto& variant = suite.variants[position];
      PlannedRun run;
      run.index = static_cast<int64_t>(suite.plan.size());
      run.workload = variant.workload;
      run.variant = variant.name;
      run.repetition = rep;
      run.config = variant.config;
      run.config.seed = variant.config.seed + rep;  // each repetition its own seed
      run.config_json = variant.config_json;
      run.config_json["seed"] = run.config.seed;
      suite.plan.push_back(std::move(run));
    }
  }
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
  suite.repetitions = in.get_int("repetitions", 1, 1, 1000);
  const auto* base = in.raw("base");
  nlohmann::json base_json = base ? *base : nlohmann::json::object();
  if (!base_json.is_object()) in.fail("base", "expected a JSON object of TrainConfig fields");
  if (base_json.contains("device") && base_json["device"] != suite.device) {
    in.fail("base", "device " + base_json["device"].dump() + " differs from the suite's device \"" +
                        suite.device + "\"; set the suite's \"device\" instead");
  }
  base_json["device"] = suite.device;
  const auto workloads = read_workloads(in, base_json);

  std::vector<Toggle> toggles;
  const bool technique_design = suite.design == "one_at_a_time" || suite.design == "leave_one_out";
  if (technique_design) toggles = read_technique_toggles(in, workloads);
  if (suite.design == "grid") toggles = read_variants(in, workloads);
  if (suite.design == "scaling") toggles = read_sweep(in);
  in.reject_unknown_keys();  // also rejects keys that belong to another design
  toggles = select(std::move(toggles), selection, !technique_design);

  SuiteBuilder builder(suite, file);
  for (const auto& workload : workloads) {
    if (suite.design == "one_at_a_time") expand_one_at_a_time(builder, workload, toggles);
    if (suite.design == "leave_one_out") expand_leave_one_out(builder, workload, toggles);
    if (!technique_design) expand_in_order(builder, workload, toggles);
  }
  build_plan(suite, order);
  return suite;
}

Suite load_suite(const std::string& path, const SuiteSelection& selection) {
  return suite_from_json(read_json_file(path), path, selection);
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
