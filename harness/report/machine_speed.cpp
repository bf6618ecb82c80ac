#include "harness/report/machine_speed.h"

#include <optional>

namespace speedbench::report {

namespace {

std::string sizes_text(const std::set<int64_t>& sizes) {
  std::string text;
  for (const auto n : sizes) {
    text += (text.empty() ? "" : ", ") + std::to_string(n) + " x " + std::to_string(n);
  }
  return text;
}

const MetricInfo& fp32_peak_metric() {
  static const MetricInfo metric{"fp32_matmul_peak", "fp32 matmul peak",        "FLOP/s",
                                 /*ratio=*/true,     /*lower_is_better=*/false, nullptr};
  return metric;
}

}  // namespace

FolderPeaks fp32_matmul_peaks(const Results& results) {
  FolderPeaks peaks;
  for (const auto& record : results.records) {
    if (record.status != RunStatus::kOk) continue;
    const auto& techniques = record.config.value("techniques", nlohmann::json::object());
    if (techniques.value("tf32", false)) continue;
    // The start's probe: records before 2026-12-07 timed no other, so that folders of both kinds
    // compare like with like.
    const auto& at_start = record.metrics.matmul_peak_flops_at_start.empty()
                               ? record.metrics.matmul_peak_flops
                               : record.metrics.matmul_peak_flops_at_start;
    const auto fp32 = at_start.find("fp32");
    if (fp32 == at_start.end()) continue;
    peaks.flops_per_s.push_back(fp32->second);
    peaks.sizes.insert(record.metrics.matmul_peak_size);
  }
  return peaks;
}

MachineSpeedChange compare_machine_speed(const Results& before, const Results& after) {
  MachineSpeedChange change;
  const auto before_peaks = fp32_matmul_peaks(before);
  const auto after_peaks = fp32_matmul_peaks(after);
  std::string missing;
  for (const auto& [side, peaks] :
       {std::make_pair("before", &before_peaks), std::make_pair("after", &after_peaks)}) {
    if (peaks->flops_per_s.empty()) {
      missing += std::string(missing.empty() ? "" : "; ") + side +
                 ": no ok run without TF32 measured an fp32 matmul peak";
    }
  }
  if (!missing.empty()) {
    change.reason = missing;
    return change;
  }
  // A peak depends on n (512 on a CPU, 8192 on a GPU): only the same product compares.
  if (before_peaks.sizes.size() != 1 || before_peaks.sizes != after_peaks.sizes) {
    change.reason = "the runs timed different products: " + sizes_text(before_peaks.sizes) +
                    " before, " + sizes_text(after_peaks.sizes) + " after";
    return change;
  }
  change.matrix_size = *before_peaks.sizes.begin();
  const std::optional<ValuePairs> unpaired;  // runs of two folders: no pairs
  change.peak = compare_samples(before_peaks.flops_per_s, after_peaks.flops_per_s,
                                fp32_peak_metric(), unpaired);
  return change;
}

}  // namespace speedbench::report
