// `run --suite FILE --plan`: each variant with its baseline and the config fields it changes, the
// variants this machine cannot run, the run count; nothing run, nothing written. And the config
// differences it shares with `compare` (config_changes.h).
#include <gtest/gtest.h>

#include <filesystem>

#include "build_paths.h"
#include "harness/config/config_changes.h"
#include "harness/suite/suite.h"
#include "harness/suite/suite_plan_text.h"
#include "harness/techniques/applicability.h"
#include "test_support.h"

namespace speedbench {
namespace {

TEST(ConfigChangesTest, NamesEachDifferingFieldWithBothValuesAnArrayAsOneField) {
  const nlohmann::json before = {
      {"max_steps", 5}, {"gone", true}, {"techniques", {{"amp", "off"}, {"widths", {8, 16}}}}};
  const nlohmann::json after = {
      {"max_steps", 5}, {"added", 2}, {"techniques", {{"amp", "bf16"}, {"widths", {8, 32}}}}};
  const auto changes = config_field_changes(before, after);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_EQ(changes[0].field, "added");
  EXPECT_TRUE(changes[0].before.is_null());
  EXPECT_EQ(changes[1].field, "gone");
  EXPECT_TRUE(changes[1].after.is_null());
  EXPECT_EQ(changes[2].field, "techniques.amp");
  EXPECT_EQ(change_text(changes[2]), "\"off\" -> \"bf16\"");
  EXPECT_EQ(changes[3].field, "techniques.widths");
  EXPECT_EQ(change_text(changes[3]), "[8,16] -> [8,32]");
  EXPECT_TRUE(config_field_changes(before, before).empty());
}

nlohmann::json plan_suite_json(const std::string& device) {
  return {{"name", "p"},
          {"device", device},
          {"design", "one_at_a_time"},
          {"repetitions", 2},
          {"base", {{"max_steps", 2}}},
          {"workloads",
           {{{"name", "cnn"}, {"config", {{"model", {{"arch", "resnet"}}}}}},
            {{"name", "rnn"}, {"config", {{"model", {{"arch", "row_rnn"}}}}}}}},
          {"techniques",
           {{{"id", "amp"}, {"config", {{"techniques", {{"amp", "bf16"}}}}}},
            {{"id", "pin_memory"},
             {"workloads", {"cnn"}},
             {"config", {{"techniques", {{"pin_memory", true}}}}}}}}};
}

TEST(SuitePlanTextTest, ListsEachVariantWithWhatItChangesAndTheRunCount) {
  const auto suite = suite_from_json(plan_suite_json("cpu"), "s.json");
  const auto text = suite_plan_text(suite, /*cuda_available=*/false);
  EXPECT_EQ(text.rfind("suite p (s.json): device cpu, design one_at_a_time, 2 repetitions\n", 0),
            0u)
      << text;
  EXPECT_NE(text.find("\ncnn: 3 variants\n  baseline\n  amp (vs baseline)\n"
                      "      techniques.amp: \"off\" -> \"bf16\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  pin_memory (vs baseline): not applicable here, pin_memory applies only "
                      "on cuda (this run is on cpu)\n      techniques.pin_memory: false -> true\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nrnn: 2 variants\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n10 runs (5 variants x 2)"), std::string::npos) << text;
  EXPECT_EQ(text.find("no CUDA device"), std::string::npos) << text;
}

// What this machine's kernels decide (bf16 RNNs on a CPU: a probe) the plan says as the run
// would: not applicable with the run's reason where the probe fails, nothing where it passes.
TEST(SuitePlanTextTest, ABf16RnnVariantIsJudgedByThisMachinesKernelProbeAsTheRunWouldBe) {
  for (const std::string cell : {"lstm", "gru"}) {
    auto json = plan_suite_json("cpu");
    json["workloads"][1]["config"]["model"]["cell"] = cell;
    const auto suite = suite_from_json(json, "s.json");
    const auto text = suite_plan_text(suite, /*cuda_available=*/false);
    const auto* amp_variant = &suite.variants.at(4);
    ASSERT_EQ(amp_variant->workload + "/" + amp_variant->name, "rnn/amp");
    const auto reason = techniques_not_applicable_here(amp_variant->config);
    const auto heading = "\nrnn: 2 variants\n  baseline\n  amp (vs baseline)" +
                         (reason.empty() ? "" : ": not applicable here, " + reason) + "\n";
    EXPECT_NE(text.find(heading), std::string::npos) << cell << " (probe: \"" << reason << "\")\n"
                                                     << text;
  }
}

TEST(SuitePlanTextTest, ACudaSuiteOnAMachineWithoutAGpuSaysOnceThatItDoesNotRunHere) {
  const auto suite = suite_from_json(plan_suite_json("cuda"), "s.json");
  const auto without_gpu = suite_plan_text(suite, /*cuda_available=*/false);
  const std::string refused =
      "This machine has no CUDA device: `speedbench run` refuses this "
      "suite here.\n";
  EXPECT_NE(without_gpu.find(refused), std::string::npos) << without_gpu;
  // Its variants are what they would be on a GPU: pin_memory applies there.
  EXPECT_NE(without_gpu.find("  pin_memory (vs baseline)\n"), std::string::npos) << without_gpu;
  EXPECT_EQ(without_gpu.find("not applicable"), std::string::npos) << without_gpu;
  EXPECT_EQ(suite_plan_text(suite, /*cuda_available=*/true).find(refused), std::string::npos);
}

TEST(SuitePlanTextTest, AVariantComparedUnderAnotherLabelOrMoreThanOnceSaysEachComparison) {
  auto json = plan_suite_json("cpu");
  json["techniques"] = {{{"id", "debug_off"},
                         {"workloads", {"rnn"}},
                         {"off_config", {{"techniques", {{"debug_mode", "anomaly"}}}}}}};
  const auto one_at_a_time = suite_plan_text(suite_from_json(json, "s.json"), false);
  EXPECT_NE(one_at_a_time.find("  baseline (debug_off: vs without_debug_off)\n"
                               "      techniques.debug_mode: \"anomaly\" -> \"off\"\n"),
            std::string::npos)
      << one_at_a_time;
  EXPECT_NE(one_at_a_time.find("  without_debug_off\n"), std::string::npos) << one_at_a_time;

  json["design"] = "leave_one_out";
  json["techniques"] = {{{"id", "amp"}, {"config", {{"techniques", {{"amp", "bf16"}}}}}},
                        {{"id", "bn_no_bias"},
                         {"workloads", {"cnn"}},
                         {"config", {{"techniques", {{"bn_no_bias", true}}}}}}};
  const auto leave_one_out = suite_plan_text(suite_from_json(json, "s.json"), false);
  EXPECT_NE(leave_one_out.find("  all_on (all: vs baseline)\n"
                               "      techniques.amp: \"off\" -> \"bf16\"\n"
                               "      techniques.bn_no_bias: false -> true\n"),
            std::string::npos)
      << leave_one_out;
  EXPECT_NE(leave_one_out.find("  all_on (amp: vs without_amp)\n"
                               "      techniques.amp: \"off\" -> \"bf16\"\n  all_on"),
            std::string::npos)
      << leave_one_out;
}

// The CLI, on a shipped GPU suite: the plan on any machine, from any folder, writing nothing.
TEST(SuitePlanCliTest, PrintsAGpuSuitesPlanAnywhereAndWritesNothing) {
  testing::TempDir dir;
  const auto exe = testing::speedbench_executable();
  const auto suite = testing::source_dir() + "/suites/gpu-quick.json";
  const auto result = testing::run_command("cd " + dir.path().string() + " && " + exe +
                                           " run --suite " + suite + " --plan --repetitions 2");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("suite gpu-quick ("), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("  cuda_graphs (vs baseline)"), std::string::npos);
  EXPECT_NE(result.output.find("      techniques.cuda_graphs: false -> true\n"), std::string::npos);
  EXPECT_NE(result.output.find(" variants x 2), each in a process of its own. Nothing was run"),
            std::string::npos);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "--plan wrote into the working folder";

  const auto with_resume = testing::run_command(exe + " run --suite " + suite + " --plan --resume");
  EXPECT_EQ(with_resume.exit_code, 2) << with_resume.output;
  EXPECT_NE(with_resume.output.find("--resume excludes --plan"), std::string::npos)
      << with_resume.output;
}

}  // namespace
}  // namespace speedbench
