// The report's list of comparisons whose page faults moved with the variant: which comparisons it
// names (far more or far fewer faults a step, not host_memory_reuse's own; those whose baseline
// kept the heap apart, with no rerun offered), and where the
// markdown, summary.json and the console's summary carry it; and `compare`'s list of variants
// whose page faults moved between two folders.
#include <gtest/gtest.h>

#include "harness/report/page_fault_shifts.h"
#include "harness/report/report_writer.h"
#include "harness/report/run_folder_comparison.h"
#include "test_support.h"

namespace speedbench::report {
namespace {

using speedbench::testing::synthetic_folder;
using speedbench::testing::synthetic_record;
using speedbench::testing::TempDir;

// Three repetitions of `variant` on `workload`, each faulting `per_step` pages a step (none
// counted where it is negative, as by a build before the count).
std::vector<Record> runs_faulting(const std::string& workload, const std::string& variant,
                                  double per_step) {
  constexpr int64_t kSteps = 10;
  std::vector<Record> runs;
  for (int rep = 0; rep < 3; ++rep) {
    auto r = synthetic_record(workload, variant, rep, 100, 1000);
    r.metrics.measured_steps = kSteps;
    if (per_step >= 0) r.metrics.minor_page_faults = static_cast<int64_t>(per_step * kSteps);
    runs.push_back(r);
  }
  return runs;
}

// A workload's baseline, faulting `baseline_per_step` pages a step, and each variant of
// `variants` its own number, appended to `path`.
void append_runs(const std::string& path, const std::string& workload, double baseline_per_step,
                 const std::vector<std::pair<std::string, double>>& variants) {
  for (const auto& r : runs_faulting(workload, "baseline", baseline_per_step))
    append_record(path, r);
  for (const auto& [variant, per_step] : variants) {
    for (const auto& r : runs_faulting(workload, variant, per_step)) append_record(path, r);
  }
}

TEST(PageFaultShiftsTest, NamesTheComparisonsWhoseFaultsPerStepMovedByThousandsAndTwofold) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  append_runs(path, "lstm", 10400,
              {{"grad_accumulation", 22},   // the character LSTM's: listed
               {"amp", 7900},               // 2500 fewer, but not half: not listed
               {"host_memory_reuse", 9},    // the technique's own mechanism: not listed
               {"checkpointing", 21000}});  // twice as many: listed
  // 90 fewer: not listed; 1402 more, 15-fold: listed.
  append_runs(path, "resnet", 98, {{"channels_last", 8}, {"max_batch", 1500}});
  auto unmeasured = synthetic_record("gru", "baseline", 0, 100, 1000);  // a build before counts
  append_record(path, unmeasured);
  unmeasured.variant = "amp";
  append_record(path, unmeasured);

  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const auto shifts = page_fault_shifts(results, comparisons);
  ASSERT_EQ(shifts.size(), 3u);
  for (const auto& s : shifts) EXPECT_FALSE(s.heap_kept);
  EXPECT_EQ(shifts[0].workload, "lstm");
  EXPECT_EQ(shifts[0].technique, "grad_accumulation");
  EXPECT_DOUBLE_EQ(shifts[0].baseline_per_step, 10400);
  EXPECT_DOUBLE_EQ(shifts[0].variant_per_step, 22);
  EXPECT_EQ(shifts[1].technique, "checkpointing");
  EXPECT_EQ(shifts[2].workload, "resnet");
  EXPECT_EQ(shifts[2].technique, "max_batch");

  const auto markdown = markdown_report({results, comparisons, {}, {}});
  const auto health = markdown.find("## Measurement health");
  ASSERT_NE(health, std::string::npos);
  EXPECT_NE(markdown.find("| lstm | grad_accumulation | 10400 -> 22 |", health), std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| resnet | max_batch | 98 -> 1500 |", health), std::string::npos);
  EXPECT_EQ(markdown.find("| lstm | amp | 10400 -> 7900 |"), std::string::npos);
  // Records from run-one have no plan, so no suite file to name.
  EXPECT_NE(markdown.find("`speedbench run --suite SUITE --only grad_accumulation,checkpointing,"
                          "max_batch --base '{\"techniques\": {\"host_memory_reuse\": true}}'`",
                          health),
            std::string::npos)
      << markdown;

  EXPECT_NE(console_summary({results, comparisons, {}, {}})
                .find("page faults moved with the variant in 3 comparisons (lstm "
                      "grad_accumulation, lstm checkpointing, resnet max_batch)"),
            std::string::npos);

  const auto summary = summary_json({results, comparisons, {}, {}});
  ASSERT_EQ(summary["page_fault_shifts"].size(), 3u);
  EXPECT_EQ(summary["page_fault_shifts"][0]["technique"], "grad_accumulation");
  EXPECT_DOUBLE_EQ(summary["page_fault_shifts"][0]["variant_per_step"].get<double>(), 22);
}

// Where the baseline kept freed host memory (the CPU presets' base), glibc mapped nothing afresh:
// the report says the faults come from elsewhere and offers no rerun with host_memory_reuse.
TEST(PageFaultShiftsTest, FaultsThatMovedWithTheHeapKeptAreNotBlamedOnTheMmapThreshold) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  for (auto r : runs_faulting("resnet", "baseline", 4)) {
    r.techniques_on = {"host_memory_reuse"};
    append_record(path, r);
  }
  for (auto r : runs_faulting("resnet", "max_batch", 1500)) {
    r.techniques_on = {"host_memory_reuse", "max_batch"};
    append_record(path, r);
  }
  append_runs(path, "lstm", 10400, {{"grad_accumulation", 22}});
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const auto shifts = page_fault_shifts(results, comparisons);
  ASSERT_EQ(shifts.size(), 2u);
  EXPECT_EQ(shifts[0].technique, "max_batch");
  EXPECT_TRUE(shifts[0].heap_kept);
  EXPECT_FALSE(shifts[1].heap_kept);
  EXPECT_FALSE(shifts[0].layouts_drawn);  // records that held no block

  const auto text = page_fault_shifts_text(shifts, "s.json");
  const auto kept = text.find("although the baselines kept freed host memory");
  ASSERT_NE(kept, std::string::npos) << text;
  EXPECT_NE(text.find("| resnet | max_batch | 4 -> 1500 |", kept), std::string::npos) << text;
  // The rerun names only the comparison whose baseline ran with glibc's defaults.
  EXPECT_NE(text.find("--only grad_accumulation --base"), std::string::npos) << text;
  EXPECT_LT(text.find("| lstm | grad_accumulation | 10400 -> 22 |"), kept) << text;
  EXPECT_EQ(text.find("max_batch --base"), std::string::npos) << text;

  const auto summary = summary_json({results, comparisons, {}, {}});
  EXPECT_TRUE(summary["page_fault_shifts"][0]["heap_kept"].get<bool>());
  EXPECT_FALSE(summary["page_fault_shifts"][1]["heap_kept"].get<bool>());
}

// Runs that drew their heaps' layouts (heap_layout_bytes) sampled the faults' spread: the report
// no longer says that every repetition repeats them, and says so only where both sides drew.
TEST(PageFaultShiftsTest, WhereTheRunsDrewTheirHeapLayoutsTheIntervalHoldsTheFaultsSpread) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  const auto drawing = [](std::vector<Record> runs, bool heap_kept) {
    for (auto& r : runs) {
      r.metrics.heap_layout_bytes = 64 + 100 * r.repetition;
      if (heap_kept) r.techniques_on.push_back("host_memory_reuse");
    }
    return runs;
  };
  for (bool heap_kept : {false, true}) {
    const std::string workload = heap_kept ? "resnet_heap" : "resnet";
    for (const auto& r : drawing(runs_faulting(workload, "baseline", 4), heap_kept))
      append_record(path, r);
    for (const auto& r : drawing(runs_faulting(workload, "max_batch", 1500), heap_kept))
      append_record(path, r);
  }
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  const auto shifts = page_fault_shifts(results, comparisons);
  ASSERT_EQ(shifts.size(), 2u);
  for (const auto& s : shifts) EXPECT_TRUE(s.layouts_drawn) << s.workload;
  const auto text = page_fault_shifts_text(shifts, "s.json");
  EXPECT_EQ(text.find("Every repetition repeats"), std::string::npos) << text;
  const auto kept = text.find("although the baselines kept freed host memory");
  ASSERT_NE(kept, std::string::npos) << text;
  const std::string sampled = "Their runs drew their heaps' layouts (heap_layout_bytes)";
  EXPECT_LT(text.find(sampled), kept) << text;                     // glibc's defaults
  EXPECT_NE(text.find(sampled, kept), std::string::npos) << text;  // the heap kept
  EXPECT_TRUE(summary_json({results, comparisons, {}, {}})["page_fault_shifts"][0]["layouts_drawn"]
                  .get<bool>());

  // One side from a build that drew none: its repetitions repeated one layout.
  auto mixed = shifts;
  mixed[0].layouts_drawn = false;
  const auto mixed_text = page_fault_shifts_text(mixed, "s.json");
  EXPECT_LT(mixed_text.find("Every repetition repeats that"), mixed_text.find(sampled))
      << mixed_text;
  TempDir one_side;
  const auto one_side_path = one_side.file("runs.jsonl");
  for (const auto& r : runs_faulting("resnet", "baseline", 4)) append_record(one_side_path, r);
  for (const auto& r : drawing(runs_faulting("resnet", "max_batch", 1500), false))
    append_record(one_side_path, r);
  const auto one_side_results = load_results(one_side.path().string());
  const auto one_side_shifts = page_fault_shifts(one_side_results, compare(one_side_results));
  ASSERT_EQ(one_side_shifts.size(), 1u);
  EXPECT_FALSE(one_side_shifts[0].layouts_drawn);
}

TEST(PageFaultShiftsTest, AReportWithoutSuchComparisonsSaysNothingOfThem) {
  TempDir dir;
  append_runs(dir.file("runs.jsonl"), "resnet", 98, {{"channels_last", 8}});
  const auto results = load_results(dir.path().string());
  const auto comparisons = compare(results);
  EXPECT_TRUE(page_fault_shifts(results, comparisons).empty());
  EXPECT_EQ(page_fault_shifts_text({}, "s.json"), "");
  const auto markdown = markdown_report({results, comparisons, {}, {}});
  EXPECT_EQ(markdown.find("fresh pages a step"), std::string::npos) << markdown;
  EXPECT_EQ(console_summary({results, comparisons, {}, {}}).find("page faults"), std::string::npos);
  EXPECT_TRUE(summary_json({results, comparisons, {}, {}})["page_fault_shifts"].empty());
}

TEST(PageFaultShiftsTest, CompareNamesTheVariantsWhoseFaultsMovedBetweenTheFolders) {
  const auto folder = [](const std::string& name, const std::vector<double>& per_step) {
    const std::vector<std::string> variants = {"baseline", "sync_avoidance", "host_memory_reuse",
                                               "amp", "old"};
    std::vector<std::vector<Record>> runs;
    for (size_t i = 0; i < variants.size(); ++i)
      runs.push_back(runs_faulting("w", variants[i], per_step[i]));
    return synthetic_folder(name, runs);
  };
  const auto before = folder("before", {11, 11, 5000, 3000, -1});
  const auto after = folder("after", {11, 1328, 0, 2000, 5000});
  const auto c = compare_folders(before, after, *find_metric("throughput"), 0.05);
  // amp: 1000 fewer but not half; old: not counted before.
  ASSERT_EQ(c.page_fault_shifts.size(), 2u);
  EXPECT_EQ(c.page_fault_shifts[0].variant, "sync_avoidance");
  EXPECT_DOUBLE_EQ(c.page_fault_shifts[0].before_per_step, 11);
  EXPECT_DOUBLE_EQ(c.page_fault_shifts[0].after_per_step, 1328);
  EXPECT_EQ(c.page_fault_shifts[1].variant, "host_memory_reuse");  // a variant, not a technique

  const std::string items = "w/sync_avoidance 11 -> 1328, w/host_memory_reuse 5000 -> 0";
  EXPECT_NE(folder_comparison_console(c).find("page faults per step moved (part of these "
                                              "variants' change may be the host allocator's): " +
                                              items),
            std::string::npos)
      << folder_comparison_console(c);
  EXPECT_NE(folder_comparison_markdown(c).find(items + "."), std::string::npos);
  const auto json = folder_comparison_json(c);
  ASSERT_EQ(json["page_fault_shifts"].size(), 2u);
  EXPECT_EQ(json["page_fault_shifts"][0]["variant"], "sync_avoidance");
  EXPECT_DOUBLE_EQ(json["page_fault_shifts"][1]["after_per_step"].get<double>(), 0);

  const auto same = compare_folders(before, before, *find_metric("throughput"), 0.05);
  EXPECT_TRUE(same.page_fault_shifts.empty());
  EXPECT_EQ(folder_comparison_console(same).find("page faults"), std::string::npos);
  EXPECT_EQ(folder_comparison_markdown(same).find("Page faults"), std::string::npos);
}

}  // namespace
}  // namespace speedbench::report
