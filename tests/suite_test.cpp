// Suites: designs expand into the variants and comparisons they promise, selections filter them,
// every shipped preset loads, and a variant that does not really switch its technique is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "build_paths.h"
#include "harness/config/config_error.h"
#include "harness/suite/suite.h"
#include "harness/techniques/registry.h"

namespace speedbench {
namespace {

nlohmann::json suite_json(const std::string& design, nlohmann::json extra) {
  nlohmann::json json = {{"name", "t"},
                         {"design", design},
                         {"repetitions", 2},
                         {"base", {{"max_steps", 2}}},
                         {"workloads",
                          {{{"name", "cnn"}, {"config", {{"model", {{"arch", "resnet"}}}}}},
                           {{"name", "rnn"}, {"config", {{"model", {{"arch", "row_rnn"}}}}}}}}};
  json.merge_patch(extra);
  return json;
}

const nlohmann::json kTechniques = {
    {"techniques",
     {{{"id", "amp"}, {"config", {{"techniques", {{"amp", "bf16"}}}}}},
      {{"id", "bn_no_bias"},
       {"workloads", {"cnn"}},
       {"config", {{"techniques", {{"bn_no_bias", true}}}}}},
      {{"id", "debug_off"}, {"off_config", {{"techniques", {{"debug_mode", "anomaly"}}}}}}}}};

std::vector<std::string> variant_names(const Suite& suite, const std::string& workload) {
  std::vector<std::string> names;
  for (const auto& v : suite.variants) {
    if (v.workload == workload) names.push_back(v.name);
  }
  return names;
}

std::string config_error(const nlohmann::json& json, const SuiteSelection& selection = {}) {
  try {
    suite_from_json(json, "s.json", selection);
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "";
}

TEST(SuiteTest, RepetitionsDefaultToTheDesignMinimumOfTheDeviceOrComeFromTheCommandLine) {
  auto json = suite_json("one_at_a_time", kTechniques);
  json.erase("repetitions");
  const auto cpu = suite_from_json(json, "s.json");
  EXPECT_EQ(cpu.repetitions, kDefaultRepetitionsCpu);
  EXPECT_EQ(cpu.plan.size(), 7u * kDefaultRepetitionsCpu);  // 4 cnn + 3 rnn variants, each repeated
  json["device"] = "cuda";
  EXPECT_EQ(suite_from_json(json, "s.json").repetitions, kDefaultRepetitionsCuda);
  json["repetitions"] = 1;  // a file that says so gets what it says
  EXPECT_EQ(suite_from_json(json, "s.json").repetitions, 1);
  // --repetitions overrides the file, and the plan follows it.
  SuiteSelection more;
  more.repetitions = 7;
  const auto repeated = suite_from_json(json, "s.json", more);
  EXPECT_EQ(repeated.repetitions, 7);
  EXPECT_EQ(repeated.plan.size(), 7u * 7u);
  EXPECT_EQ(suite_plan_to_json(repeated)["repetitions"], 7);  // what --resume compares
}

TEST(SuiteTest, OneAtATimeComparesEachTechniqueWithTheBaseline) {
  const auto suite = suite_from_json(suite_json("one_at_a_time", kTechniques), "s.json");
  EXPECT_EQ(variant_names(suite, "cnn"),
            (std::vector<std::string>{"baseline", "amp", "bn_no_bias", "without_debug_off"}));
  EXPECT_EQ(variant_names(suite, "rnn"),
            (std::vector<std::string>{"baseline", "amp", "without_debug_off"}));
  ASSERT_EQ(suite.comparisons.size(), 5u);
  EXPECT_EQ(suite.comparisons[0].label, "amp");
  EXPECT_EQ(suite.comparisons[0].baseline, "baseline");
  EXPECT_EQ(suite.comparisons[0].variant, "amp");
  // A technique on by default: the variant turns it off, so the comparison runs the other way.
  EXPECT_EQ(suite.comparisons[2].label, "debug_off");
  EXPECT_EQ(suite.comparisons[2].baseline, "without_debug_off");
  EXPECT_EQ(suite.comparisons[2].variant, "baseline");
  const auto& amp = suite.variants[1];
  EXPECT_EQ(amp.config.techniques.amp, "bf16");
  EXPECT_EQ(amp.config.workload, "cnn");
  EXPECT_EQ(amp.config.max_steps, 2);
}

TEST(SuiteTest, PlanInterleavesVariantsAndGivesEachRepetitionItsSeed) {
  const auto suite = suite_from_json(suite_json("one_at_a_time", kTechniques), "s.json");
  ASSERT_EQ(suite.plan.size(), 2 * suite.variants.size());
  const auto half = suite.variants.size();
  for (size_t i = 0; i < half; ++i) {
    EXPECT_EQ(suite.plan[i].variant, suite.plan[i + half].variant);
    EXPECT_EQ(suite.plan[i].repetition, 0);
    EXPECT_EQ(suite.plan[i + half].repetition, 1);
    EXPECT_EQ(suite.plan[i + half].config.seed, suite.plan[i].config.seed + 1);
    EXPECT_EQ(suite.plan[i + half].config_json["seed"], suite.plan[i + half].config.seed);
  }
}

TEST(SuiteTest, ShuffledOrderPermutesEachRepetitionReproducibly) {
  auto json = suite_json("one_at_a_time", kTechniques);
  json["order"] = "shuffled";
  json["repetitions"] = 6;
  const auto a = suite_from_json(json, "s.json");
  const auto b = suite_from_json(json, "s.json");
  const auto half = a.variants.size();
  bool some_repetition_differs = false;
  for (size_t i = 0; i < a.plan.size(); ++i) {
    EXPECT_EQ(a.plan[i].variant, b.plan[i].variant);
    EXPECT_EQ(a.plan[i].repetition, static_cast<int64_t>(i / half));  // a repetition stays a block
    if (a.plan[i].variant != a.variants[i % half].name) some_repetition_differs = true;
  }
  EXPECT_TRUE(some_repetition_differs);
}

TEST(SuiteTest, LeaveOneOutComparesAllOnWithAllOnMinusEach) {
  const auto suite = suite_from_json(suite_json("leave_one_out", kTechniques), "s.json");
  EXPECT_EQ(variant_names(suite, "cnn"),
            (std::vector<std::string>{"baseline", "all_on", "without_amp", "without_bn_no_bias",
                                      "without_debug_off"}));
  const auto& baseline = suite.variants[0].config.techniques;
  EXPECT_EQ(baseline.amp, "off");
  EXPECT_EQ(baseline.debug_mode, "anomaly");  // every technique off, debug_off included
  const auto& all_on = suite.variants[1].config.techniques;
  EXPECT_EQ(all_on.amp, "bf16");
  EXPECT_TRUE(all_on.bn_no_bias);
  EXPECT_EQ(all_on.debug_mode, "off");
  const auto& without_amp = suite.variants[2].config.techniques;
  EXPECT_EQ(without_amp.amp, "off");
  EXPECT_TRUE(without_amp.bn_no_bias);
  EXPECT_EQ(suite.variants[4].config.techniques.debug_mode, "anomaly");
  EXPECT_EQ(suite.comparisons[0].label, "all");
  EXPECT_EQ(suite.comparisons[1].label, "amp");
  EXPECT_EQ(suite.comparisons[1].baseline, "without_amp");
  EXPECT_EQ(suite.comparisons[1].variant, "all_on");
}

TEST(SuiteTest, GridComparesEveryVariantWithTheFirst) {
  const auto suite = suite_from_json(
      suite_json("grid", {{"variants",
                           {{{"name", "plain"}},
                            {{"name", "fast"}, {"config", {{"techniques", {{"amp", "bf16"}}}}}}}}}),
      "s.json");
  EXPECT_EQ(variant_names(suite, "cnn"), (std::vector<std::string>{"plain", "fast"}));
  ASSERT_EQ(suite.comparisons.size(), 2u);
  EXPECT_EQ(suite.comparisons[1].workload, "rnn");
  EXPECT_EQ(suite.comparisons[1].label, "fast");
  EXPECT_EQ(suite.comparisons[1].baseline, "plain");
}

TEST(SuiteTest, ScalingSweepsAFieldFromItsFirstValue) {
  const auto suite = suite_from_json(
      suite_json("scaling", {{"sweep", {{"field", "batch_size"}, {"values", {32, 64, 128}}}}}),
      "s.json");
  EXPECT_EQ(variant_names(suite, "cnn"),
            (std::vector<std::string>{"batch_size=32", "batch_size=64", "batch_size=128"}));
  EXPECT_EQ(suite.variants[2].config.batch_size, 128);
  EXPECT_EQ(suite.comparisons[0].baseline, "batch_size=32");
  const auto nested = suite_from_json(
      suite_json("scaling",
                 {{"sweep", {{"field", "techniques.grad_accumulation"}, {"values", {1, 2}}}}}),
      "s.json");
  EXPECT_EQ(nested.variants[1].name, "grad_accumulation=2");
  EXPECT_EQ(nested.variants[1].config.techniques.grad_accumulation, 2);
}

TEST(SuiteTest, OnlyAndExcludeSelectTechniquesAndRejectUnknownNames) {
  const auto only = suite_from_json(suite_json("one_at_a_time", kTechniques), "s.json",
                                    SuiteSelection{{"amp"}, {}});
  EXPECT_EQ(variant_names(only, "cnn"), (std::vector<std::string>{"baseline", "amp"}));
  const auto excluded = suite_from_json(suite_json("one_at_a_time", kTechniques), "s.json",
                                        SuiteSelection{{}, {"amp", "debug_off"}});
  EXPECT_EQ(variant_names(excluded, "cnn"), (std::vector<std::string>{"baseline", "bn_no_bias"}));
  // bn_no_bias applies to cnn alone: the rnn's baseline would compare nothing, so it is left out.
  const auto one_workload = suite_from_json(suite_json("one_at_a_time", kTechniques), "s.json",
                                            SuiteSelection{{"bn_no_bias"}, {}});
  EXPECT_EQ(variant_names(one_workload, "cnn"),
            (std::vector<std::string>{"baseline", "bn_no_bias"}));
  EXPECT_TRUE(variant_names(one_workload, "rnn").empty());
  EXPECT_EQ(one_workload.plan.size(), 2u * 2u);  // 2 variants, 2 repetitions
  const auto error =
      config_error(suite_json("one_at_a_time", kTechniques), SuiteSelection{{"ampp"}, {}});
  EXPECT_NE(
      error.find(
          "field '--only': \"ampp\" is not in this suite; it has: amp, bn_no_bias, debug_off"),
      std::string::npos)
      << error;
}

TEST(SuiteTest, AVariantThatDoesNotSwitchItsTechniqueIsRefused) {
  // A label without a mechanism: "amp" whose config changes something else.
  const auto label_only = config_error(suite_json(
      "one_at_a_time",
      {{"techniques", {{{"id", "amp"}, {"config", {{"techniques", {{"bn_no_bias", true}}}}}}}}}));
  EXPECT_NE(label_only.find("techniques[0] (amp)"), std::string::npos) << label_only;
  EXPECT_NE(label_only.find("leaves amp off (techniques.amp); expected it to turn it on"),
            std::string::npos)
      << label_only;
  // A pair of switches, half turned on: the message names both fields.
  const auto half = config_error(
      suite_json("one_at_a_time", {{"techniques",
                                    {{{"id", "loader_workers_pinned"},
                                      {"config", {{"techniques", {{"loader_workers", 4}}}}}}}}}));
  EXPECT_NE(half.find("leaves loader_workers_pinned off (techniques.loader_workers and "
                      "techniques.pin_memory); expected it to turn it on"),
            std::string::npos)
      << half;
}

TEST(SuiteTest, BadSuitesNameTheField) {
  EXPECT_NE(
      config_error(suite_json("one_at_a_time",
                              {{"techniques",
                                {{{"id", "warp_drive"}, {"config", nlohmann::json::object()}}}}}))
          .find("techniques[0].id': \"warp_drive\" is not a technique id"),
      std::string::npos);
  EXPECT_NE(config_error(suite_json("one_at_a_time", {{"techniques", {{{"id", "amp"}}}}}))
                .find("give exactly one of \"config\""),
            std::string::npos);
  const nlohmann::json amp = {{"id", "amp"}, {"config", {{"techniques", {{"amp", "bf16"}}}}}};
  EXPECT_NE(config_error(suite_json("one_at_a_time", {{"techniques", {amp, amp}}}))
                .find("techniques[1].id': \"amp\" is used twice"),
            std::string::npos);
  // A key of another design is not silently ignored.
  auto mixed = suite_json("grid", kTechniques);
  mixed["variants"] = {{{"name", "a"}}, {{"name", "b"}}};
  EXPECT_NE(config_error(mixed).find("field 'techniques': unknown key"), std::string::npos)
      << config_error(mixed);
  EXPECT_NE(config_error(suite_json("one_at_a_time", {{"base", {{"device", "cuda"}}},
                                                      {"techniques", kTechniques["techniques"]}}))
                .find("differs from the suite's device \"cpu\""),
            std::string::npos)
      << "device is the suite's";
  EXPECT_NE(
      config_error(suite_json("grid", {{"variants", {{{"name", "only"}}}}})).find("at least two"),
      std::string::npos);
  const auto bad_value = config_error(suite_json(
      "grid",
      {{"variants",
        {{{"name", "a"}}, {{"name", "b"}, {"config", {{"optimizer", {{"lr", "fast"}}}}}}}}}));
  EXPECT_NE(bad_value.find("variants[1] (b) on workload cnn: optimizer.lr"), std::string::npos)
      << bad_value;
  EXPECT_NE(config_error(suite_json("one_at_a_time",
                                    {{"techniques",
                                      {{{"id", "amp"},
                                        {"workloads", {"gpt"}},
                                        {"config", {{"techniques", {{"amp", "bf16"}}}}}}}}}))
                .find("\"gpt\" is not one of the suite's workloads"),
            std::string::npos);
}

TEST(SuiteTest, PlanJsonRoundTripsTheComparisons) {
  const auto suite = suite_from_json(suite_json("one_at_a_time", kTechniques), "s.json");
  const auto plan = suite_plan_to_json(suite);
  EXPECT_EQ(plan["runs"].size(), suite.plan.size());
  const auto comparisons = comparisons_from_plan_json(plan);
  ASSERT_EQ(comparisons.size(), suite.comparisons.size());
  EXPECT_EQ(comparisons[2].baseline, "without_debug_off");
}

TEST(SuiteTest, EveryShippedPresetLoads) {
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(testing::source_dir() + "/suites")) {
    const auto name = entry.path().filename().string();
    if (entry.path().extension() != ".json" || name == "claims.json" || name.rfind("tta-", 0) == 0)
      continue;
    SCOPED_TRACE(name);
    const auto suite = load_suite(entry.path().string());
    EXPECT_FALSE(suite.plan.empty());
    EXPECT_EQ(suite.name + ".json", name) << "a preset's file is named after the suite";
    loaded += 1;
  }
  EXPECT_GE(loaded, 5);
}

// The presets that compare every technique (the CI suite, the CPU reference, the GPU check's and
// the full GPU one) do compare every technique their device can run: a technique registered after
// a preset was written is not left out of its report unnoticed. ddp is the exception: it needs
// several worker processes, so it has a suite of its own (suites/ddp.json).
TEST(SuiteTest, EveryTechniquePresetComparesEachTechniqueOfItsDevice) {
  for (const std::string name : {"smoke", "cpu-full", "gpu-quick", "gpu-full"}) {
    SCOPED_TRACE(name);
    const auto suite = load_suite(testing::source_dir() + "/suites/" + name + ".json");
    std::set<std::string> compared;
    for (const auto& comparison : suite.comparisons) compared.insert(comparison.label);
    for (const auto& technique : technique_registry()) {
      const auto& devices = technique.devices;
      const bool runs_here =
          std::find(devices.begin(), devices.end(), suite.device) != devices.end();
      if (!runs_here || technique.id == "ddp") continue;
      EXPECT_TRUE(compared.count(technique.id)) << technique.id << " is not compared";
    }
  }
}

}  // namespace
}  // namespace speedbench
