#include "harness/suite/suite_plan_text.h"

#include <map>

#include "harness/config/config_changes.h"
#include "harness/config/config_loader.h"
#include "harness/techniques/applicability.h"

namespace speedbench {

namespace {

const SuiteVariant* find_variant(const Suite& suite, const std::string& workload,
                                 const std::string& name) {
  for (const auto& variant : suite.variants) {
    if (variant.workload == workload && variant.name == name) return &variant;
  }
  return nullptr;
}

// "  amp (vs baseline)" and the config fields it changes against that baseline, one a line; a
// variant compared more than once (leave_one_out's all_on) has a heading for each comparison,
// and one compared under another label says it ("baseline (debug_off: vs without_debug_off)").
// Applicability is judged as a run judges it before it starts (the bf16 kernel probe included);
// a cuda suite on a machine without a GPU is said once, for the whole suite.
std::string variant_lines(const Suite& suite, const SuiteVariant& variant) {
  const auto reason = techniques_not_applicable_here(variant.config);
  const std::string heading_end = (reason.empty() ? "" : ": not applicable here, " + reason) + "\n";
  std::string text;
  for (const auto& comparison : suite.comparisons) {
    if (comparison.workload != variant.workload || comparison.variant != variant.name) continue;
    const auto* baseline = find_variant(suite, variant.workload, comparison.baseline);
    if (baseline == nullptr) continue;
    const std::string label = comparison.label == variant.name ? "" : comparison.label + ": ";
    text += "  " + variant.name + " (" + label + "vs " + comparison.baseline + ")" + heading_end;
    for (const auto& change : config_field_changes(train_config_to_json(baseline->config),
                                                   train_config_to_json(variant.config))) {
      text += "      " + change.field + ": " + change_text(change) + "\n";
    }
  }
  return text.empty() ? "  " + variant.name + heading_end : text;
}

}  // namespace

std::string suite_plan_text(const Suite& suite, bool cuda_available) {
  std::string text = "suite " + suite.name + " (" + suite.file + "): device " + suite.device +
                     ", design " + suite.design + ", " + std::to_string(suite.repetitions) +
                     (suite.repetitions == 1 ? " repetition\n" : " repetitions\n");
  if (suite.device == "cuda" && !cuda_available) {
    text += "This machine has no CUDA device: `speedbench run` refuses this suite here.\n";
  }
  std::vector<std::string> workloads;  // in the suite's order
  std::map<std::string, int64_t> variant_count;
  for (const auto& variant : suite.variants) {
    if (variant_count[variant.workload]++ == 0) workloads.push_back(variant.workload);
  }
  for (const auto& workload : workloads) {
    text += "\n" + workload + ": " + std::to_string(variant_count[workload]) + " variants\n";
    for (const auto& variant : suite.variants) {
      if (variant.workload == workload) text += variant_lines(suite, variant);
    }
  }
  text += "\n" + std::to_string(suite.plan.size()) + " runs (" +
          std::to_string(suite.variants.size()) + " variants x " +
          std::to_string(suite.repetitions) +
          "), each in a process of its own. Nothing was run (--plan). Applicability is judged "
          "as each run judges it when it starts: by the devices and data placement its "
          "techniques need, and for bf16 RNNs on a CPU by a probe of this machine's kernels.\n";
  return text;
}

}  // namespace speedbench
