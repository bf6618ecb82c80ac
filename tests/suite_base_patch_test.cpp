// `run --suite FILE --base PATCH`: the patch reaches every variant's config through the suite's
// base (the workloads' configs and the toggles still override it), and the suite's description,
// which the report and plan.json carry, says it was applied. Its bad inputs are in the bad-input
// catalogue.
#include <gtest/gtest.h>

#include "harness/suite/suite.h"

namespace speedbench {
namespace {

nlohmann::json two_workload_suite() {
  return {{"name", "t"},
          {"description", "Two workloads."},
          {"design", "one_at_a_time"},
          {"repetitions", 2},
          {"base", {{"max_steps", 2}}},
          {"workloads",
           {{{"name", "cnn"}, {"config", {{"model", {{"arch", "resnet"}}}}}},
            {{"name", "short"}, {"config", {{"model", {{"arch", "resnet"}}}, {"max_steps", 1}}}}}},
          {"techniques",
           {{{"id", "sync_avoidance"}, {"config", {{"techniques", {{"sync_avoidance", true}}}}}}}}};
}

TEST(SuiteBasePatchTest, ThePatchReachesEveryVariantUnderTheWorkloadsAndTheToggles) {
  SuiteSelection selection;
  selection.base_patch = {{"techniques", {{"host_memory_reuse", true}}}, {"max_steps", 3}};
  const auto suite = suite_from_json(two_workload_suite(), "s.json", selection);
  ASSERT_EQ(suite.plan.size(), 8u);  // 2 workloads x (baseline, sync_avoidance) x 2
  for (const auto& run : suite.plan) {
    SCOPED_TRACE(run.workload + "/" + run.variant);
    EXPECT_TRUE(run.config.techniques.host_memory_reuse);
    // The workload's own max_steps wins over the patched base's.
    EXPECT_EQ(run.config.max_steps, run.workload == "short" ? 1 : 3);
    EXPECT_EQ(run.config.techniques.sync_avoidance, run.variant == "sync_avoidance");
  }
  EXPECT_EQ(suite.base_patch, R"({"max_steps":3,"techniques":{"host_memory_reuse":true}})");
  EXPECT_EQ(suite.description,
            "Two workloads. Run with its base changed by --base "
            R"({"max_steps":3,"techniques":{"host_memory_reuse":true}}.)");
  EXPECT_EQ(suite_plan_to_json(suite)["description"], suite.description);
}

TEST(SuiteBasePatchTest, WithoutAPatchTheFilesBaseRunsAndTheDescriptionIsTheFiles) {
  const auto suite = suite_from_json(two_workload_suite(), "s.json");
  EXPECT_TRUE(suite.base_patch.empty());
  EXPECT_EQ(suite.description, "Two workloads.");
  for (const auto& run : suite.plan) EXPECT_FALSE(run.config.techniques.host_memory_reuse);
}

}  // namespace
}  // namespace speedbench
