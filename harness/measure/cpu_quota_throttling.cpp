#include "harness/measure/cpu_quota_throttling.h"

#include <algorithm>
#include <sstream>

#include "harness/measure/cgroup_files.h"

namespace speedbench::measure {

std::optional<QuotaPeriods> quota_periods_from_cpu_stat(const std::string& cpu_stat) {
  std::istringstream lines(cpu_stat);
  std::optional<int64_t> periods, throttled;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name;
    int64_t value = 0;
    if (!(fields >> name >> value) || value < 0) continue;
    if (name == "nr_periods") periods = value;
    if (name == "nr_throttled") throttled = value;
  }
  if (!periods || !throttled) return std::nullopt;
  return QuotaPeriods{*periods, *throttled};
}

std::optional<double> throttled_share(const QuotaPeriods& before, const QuotaPeriods& after) {
  const int64_t periods = after.periods - before.periods;
  if (periods <= 0) return std::nullopt;
  const int64_t throttled = std::clamp<int64_t>(after.throttled - before.throttled, 0, periods);
  return static_cast<double>(throttled) / static_cast<double>(periods);
}

CpuQuotaThrottlingMeter::CpuQuotaThrottlingMeter()
    : CpuQuotaThrottlingMeter(own_cpu_cgroup_folders()) {}

CpuQuotaThrottlingMeter::CpuQuotaThrottlingMeter(const std::vector<std::string>& cgroup_folders) {
  for (const auto& folder : cgroup_folders) {
    auto path = folder + (folder.empty() || folder.back() != '/' ? "/" : "") + "cpu.stat";
    if (const auto periods = quota_periods_from_cpu_stat(file_text(path)))
      start_.emplace_back(std::move(path), *periods);
  }
}

std::optional<double> CpuQuotaThrottlingMeter::throttled_share() const {
  std::optional<double> largest;
  for (const auto& [path, before] : start_) {
    const auto after = quota_periods_from_cpu_stat(file_text(path));
    if (!after) continue;  // the cgroup went away
    if (const auto share = measure::throttled_share(before, *after))
      largest = std::max(largest.value_or(0.0), *share);
  }
  return largest;
}

}  // namespace speedbench::measure
