#include "harness/report/run_health.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "harness/measure/statistics.h"
#include "harness/measure/thread_oversubscription.h"
#include "harness/report/report_text.h"

namespace speedbench::report {

namespace {

// Why a run that trained has no MFU: its model FLOP rate beat the matmul peak it timed (the faster
// of two probes since 2026-12-07), so measure::model_flop_utilisation gave none (the product was
// not the device's fastest path for the dtype, or the probes ran slow); nothing where the run has
// an MFU or no such peak.
std::optional<std::string> mfu_above_peak(const Record& r) {
  const auto& peaks = r.metrics.matmul_peak_flops;
  if (r.metrics.mfu > 0 || peaks.size() != 1 || peaks.begin()->second <= 0) return std::nullopt;
  const double per_device_rate = r.metrics.model_flops_per_s_per_device();
  const auto& [dtype, peak] = *peaks.begin();
  if (per_device_rate <= peak) return std::nullopt;
  return "no MFU: model " + flop_rate_text(per_device_rate) + " above the " + dtype +
         " matmul peak it timed, " + flop_rate_text(peak);
}

// A run whose matmul peaks at its start and at its end moved: the machine's speed moved within it
// (a transient at one probe, a clock that fell under load).
std::optional<std::string> peak_moved(const Record& r) {
  const auto probes = matmul_peak_probes(r);
  if (!probes || !probes->moved()) return std::nullopt;
  return "peak moved: " + probes->dtype + " matmul " + flop_rate_text(probes->at_start) +
         " at its start, " + flop_rate_text(probes->at_end) + " at its end";
}

// The cores the run might use; records before cpu_cores_usable name the machine's cores only.
int64_t usable_cores(const Record& r) {
  return r.environment.value("cpu_cores_usable", r.environment.value("cpu_cores", int64_t{0}));
}

// The cores of the run's affinity mask its cgroup CPU quota keeps it from using (a container of 4
// cores' quota on a 64-core host: 60), which the other-load measure counts and others may keep
// busy without taking anything from the run; 0 without a quota, or in records before
// cpu_cores_affinity.
int64_t cores_beyond_the_quota(const Record& r) {
  return std::max(int64_t{0},
                  r.environment.value("cpu_cores_affinity", int64_t{0}) - usable_cores(r));
}

// Other processes' load (measured over the training, or an older record's sample before it)
// beyond the cores the run's threads left idle or its CPU quota kept it from, which it could take
// without slowing the run.
std::optional<HealthFlag> other_load_flag(const Record& r, const nlohmann::json& state) {
  const bool measured_in_training = r.metrics.other_processes_busy_cores.has_value();
  const double busy =
      measured_in_training ? *r.metrics.other_processes_busy_cores : state.value("busy_cores", 0.0);
  const auto techniques = r.config.value("techniques", nlohmann::json::object());
  const int64_t threads_left_idle = measure::idle_cores_left(
      r.environment.value("torch_threads", int64_t{0}), r.metrics.distributed.world_size,
      techniques.value("loader_workers", int64_t{0}), usable_cores(r));
  const int64_t beyond_quota = cores_beyond_the_quota(r);
  const int64_t idle = threads_left_idle + beyond_quota;
  if (busy <= static_cast<double>(idle) + kBusyCoresOfOthers) return std::nullopt;
  std::string text = std::string(measured_in_training ? "other load: " : "other load at start: ") +
                     format_number("%.2f", busy) + " cores busy";
  if (idle > 0) {
    text += ", more than the " + std::to_string(idle) + (idle == 1 ? " core" : " cores") +
            " the run left idle";
  }
  if (beyond_quota > 0) {
    text += " (" + std::to_string(beyond_quota) + " beyond its CPU quota)";
  }
  return HealthFlag{"other load", text};
}

}  // namespace

bool MatmulPeakProbes::moved() const {
  const double ratio = end_over_start();
  return std::max(ratio, 1 / ratio) > kPeakProbesApart;
}

std::optional<MatmulPeakProbes> matmul_peak_probes(const Record& r) {
  const auto& at_end = r.metrics.matmul_peak_flops_at_end;
  for (const auto& [dtype, at_start] : r.metrics.matmul_peak_flops_at_start) {
    const auto end = at_end.find(dtype);
    if (end != at_end.end() && at_start > 0 && end->second > 0) {
      return MatmulPeakProbes{dtype, at_start, end->second};
    }
  }
  return std::nullopt;
}

std::vector<HealthFlag> run_health_flags(const Record& r) {
  std::vector<HealthFlag> flags;
  if (r.status != RunStatus::kOk) return flags;
  const auto steps = measure::summarize(r.metrics.step_ms);
  if (r.metrics.step_ms.size() >= 2 && steps.cv > kNoisyCv) {
    flags.push_back(
        {"noisy steps", "step-time CV " + format_number("%.0f%%", 100 * steps.cv) + " > 10%"});
  }
  const auto state = r.environment.value("machine_at_start", nlohmann::json::object());
  if (auto others = other_load_flag(r, state)) flags.push_back(std::move(*others));
  if (const auto stolen = r.metrics.stolen_cores; stolen && *stolen > kBusyCoresOfOthers) {
    flags.push_back(
        {"hypervisor steal", "hypervisor steal: " + format_number("%.2f", *stolen) + " cores"});
  }
  if (const auto waiting = r.metrics.cpu_wait_threads; waiting && *waiting > kCpuWaitThreads) {
    flags.push_back(
        {"waited for a CPU", "waited for a CPU: " + format_number("%.2f", *waiting) + " threads"});
  }
  if (const auto throttled = r.metrics.quota_throttled_share;
      throttled && *throttled > kQuotaThrottledShare) {
    flags.push_back({"quota throttling", "CPU quota throttled it in " +
                                             format_number("%.0f%%", 100 * *throttled) +
                                             " of its periods"});
  }
  if (r.config.value("device", "cpu") == "cpu") {
    const auto oversubscribed =
        measure::thread_oversubscription(r.environment.value("torch_threads", int64_t{0}),
                                         r.metrics.distributed.world_size, usable_cores(r));
    if (oversubscribed) flags.push_back({"oversubscribed", "oversubscribed: " + *oversubscribed});
  }
  const auto governor = state.value("cpufreq_governor", std::string("unavailable"));
  if (governor != "unavailable" && governor != "performance") {
    flags.push_back({"frequency scaling", "CPU frequency scaling (governor " + governor + ")"});
  }
  if (const auto moved = peak_moved(r)) flags.push_back({"peak moved", *moved});
  if (const auto no_mfu = mfu_above_peak(r)) flags.push_back({"no MFU", *no_mfu});
  return flags;
}

std::vector<std::string> run_health_flag_texts(const Record& r) {
  std::vector<std::string> texts;
  for (const auto& flag : run_health_flags(r)) texts.push_back(flag.text);
  return texts;
}

FlaggedRuns flagged_runs(const std::vector<Record>& records) {
  FlaggedRuns counts;
  counts.records = records.size();
  for (const auto& r : records) {
    const auto flags = run_health_flags(r);
    counts.flagged += flags.empty() ? 0 : 1;
    for (const auto& flag : flags) {
      auto& per_kind = counts.runs_per_kind;
      auto it = std::find_if(per_kind.begin(), per_kind.end(),
                             [&](const auto& entry) { return entry.first == flag.kind; });
      if (it == per_kind.end()) it = per_kind.insert(per_kind.end(), {flag.kind, 0});
      it->second += 1;
    }
  }
  return counts;
}

std::string flagged_runs_text(const FlaggedRuns& flagged) {
  if (flagged.flagged == 0) return "none of " + std::to_string(flagged.records) + " runs flagged";
  std::vector<std::string> kinds;
  for (const auto& [kind, runs] : flagged.runs_per_kind)
    kinds.push_back(kind + ": " + std::to_string(runs));
  return std::to_string(flagged.flagged) + " of " + std::to_string(flagged.records) +
         " runs flagged (" + joined(kinds, ", ") + ")";
}

}  // namespace speedbench::report
