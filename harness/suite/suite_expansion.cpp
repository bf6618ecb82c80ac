// The suite designs as variants, comparisons and the plan (suite_expansion.h).
#include "harness/suite/suite_expansion.h"

#include <algorithm>
#include <limits>
#include <random>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/techniques/registry.h"

namespace speedbench {

namespace {

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

// "a, b, c": the names of toggles[first..].
std::string toggle_names(const std::vector<Toggle>& toggles, size_t first = 0) {
  std::string names;
  for (size_t i = first; i < toggles.size(); ++i)
    names += (names.empty() ? "" : ", ") + toggles[i].name;
  return names;
}

// Keeps the toggles --only/--exclude select; `keep_first` protects a grid or scaling baseline.
std::vector<Toggle> select(std::vector<Toggle> toggles, const SuiteSelection& selection,
                           bool keep_first) {
  for (const auto* list : {&selection.only, &selection.exclude}) {
    for (const auto& name : *list) {
      const bool known = std::any_of(toggles.begin(), toggles.end(),
                                     [&](const Toggle& t) { return t.name == name; });
      if (!known) {
        throw ConfigError(
            "command line", list == &selection.only ? "--only" : "--exclude",
            "\"" + name + "\" is not in this suite; it has: " + toggle_names(toggles));
      }
    }
  }
  const size_t baselines = keep_first ? 1 : 0;  // kept whatever the selection
  std::vector<Toggle> kept;
  for (size_t i = 0; i < toggles.size(); ++i) {
    const auto& name = toggles[i].name;
    const bool baseline = i < baselines;
    if (!baseline && !selection.only.empty() && !contains(selection.only, name)) continue;
    if (!baseline && contains(selection.exclude, name)) continue;
    kept.push_back(toggles[i]);
  }
  // A plan of baselines alone compares nothing: say so rather than run it (--only A --exclude A).
  if (kept.size() == baselines && kept.size() < toggles.size()) {
    throw ConfigError("command line", selection.exclude.empty() ? "--only" : "--exclude",
                      "leaves nothing to compare: of " + toggle_names(toggles, baselines) +
                          " none is left, and the baselines alone compare nothing; expected at "
                          "least one left");
  }
  return kept;
}

class SuiteBuilder {
 public:
  explicit SuiteBuilder(Suite& suite) : suite_(suite) {}

  void add_variant(const SuiteWorkload& workload, const std::string& name,
                   const nlohmann::json& config_json, const std::string& source) {
    SuiteVariant variant;
    variant.workload = workload.name;
    variant.name = name;
    variant.config_json = config_json;
    try {
      variant.config = train_config_from_json(config_json, suite_.file);
    } catch (const ConfigError& error) {
      // Name the variant too: the bad value may come from base, the workload or the variant.
      throw ConfigError(suite_.file,
                        source + " on workload " + workload.name + ": " + error.field(),
                        error.message());
    }
    if (variant.config.device != suite_.device) {
      throw ConfigError(suite_.file, source + " on workload " + workload.name + ": device",
                        "got \"" + variant.config.device + "\" in a suite for device \"" +
                            suite_.device + "\"; set the suite's \"device\" instead");
    }
    // Repetition r runs with seed + r (build_plan): the last repetition's seed must be an int64.
    const int64_t largest_seed = std::numeric_limits<int64_t>::max() - (suite_.repetitions - 1);
    if (variant.config.seed > largest_seed) {
      throw ConfigError(suite_.file, source + " on workload " + workload.name + ": seed",
                        "got " + std::to_string(variant.config.seed) +
                            "; repetition r runs with seed + r, so with " +
                            std::to_string(suite_.repetitions) + " repetitions expected at most " +
                            std::to_string(largest_seed));
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
      const bool patched_on = !suite_.base_patch.empty() && on_before && !toggle.turns_off;
      throw ConfigError(
          suite_.file, toggle.source,
          std::string("on workload ") + workload.name + " this config leaves " + info->id + " " +
              (on_before ? "on" : "off") + " (" + info->config_field +
              "); expected it to turn it " + (toggle.turns_off ? "off" : "on") +
              (patched_on ? "; leave this toggle out with --exclude " + toggle.name : ""));
    }
  }

 private:
  Suite& suite_;
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

bool is_technique_design(const std::string& design) {
  return design == "one_at_a_time" || design == "leave_one_out";
}

void expand_suite(Suite& suite, const std::vector<SuiteWorkload>& workloads,
                  std::vector<Toggle> toggles, const SuiteSelection& selection,
                  const std::string& order) {
  const bool technique_design = is_technique_design(suite.design);
  toggles = select(std::move(toggles), selection, /*keep_first=*/!technique_design);
  // A workload none of whose toggles applies would run its baseline and compare nothing (--only
  // a technique of one workload): it is left out. A grid's or scaling's first toggle is the
  // baseline itself.
  const size_t first_compared = technique_design ? 0 : 1;
  SuiteBuilder builder(suite);
  for (const auto& workload : workloads) {
    if (std::none_of(toggles.begin() + static_cast<std::ptrdiff_t>(first_compared), toggles.end(),
                     [&](const Toggle& t) { return applies_to(t, workload.name); }))
      continue;
    if (suite.design == "one_at_a_time") expand_one_at_a_time(builder, workload, toggles);
    if (suite.design == "leave_one_out") expand_leave_one_out(builder, workload, toggles);
    if (!technique_design) expand_in_order(builder, workload, toggles);
  }
  build_plan(suite, order);
}

}  // namespace speedbench
