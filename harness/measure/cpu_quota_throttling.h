// How often a cgroup CPU quota (docker --cpus, a Kubernetes limit) stopped a run: the kernel
// enforces a quota per period (100 ms by default), and in a period where the cgroup's threads
// use it up they are all stopped until the next one begins, a pause of up to the rest of the
// period in whatever step was running. The share of the periods in which that happened, from the
// cpu.stat of the run's cgroup and of each parent (nr_periods and nr_throttled, in cgroup v1 and
// v2 alike; a period counts only where the cgroup had threads to run), names the cause of the
// run-queue wait (run_queue_wait.h) that a quota makes with no other process running (a 2-thread
// run under a 1-core quota: 0.91 threads waiting). Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace speedbench::measure {

// A cgroup's quota periods so far, and those in which its quota ran out.
struct QuotaPeriods {
  int64_t periods = 0;
  int64_t throttled = 0;
};

// The periods of a cpu.stat text ("nr_periods 31\nnr_throttled 28\n..."); nullopt where the text
// has no such lines (v2's top cgroup, which takes no quota; a file that could not be read).
std::optional<QuotaPeriods> quota_periods_from_cpu_stat(const std::string& cpu_stat);

// throttled / periods between `before` and `after`; nullopt where no period passed (no quota, or
// no thread of the cgroup ran).
std::optional<double> throttled_share(const QuotaPeriods& before, const QuotaPeriods& after);

class CpuQuotaThrottlingMeter {
 public:
  // The interval starts now, over the cpu.stat files in `cgroup_folders` (by default those of
  // this process's cgroup and its parents, own_cpu_cgroup_folders()).
  CpuQuotaThrottlingMeter();
  explicit CpuQuotaThrottlingMeter(const std::vector<std::string>& cgroup_folders);

  // The largest throttled share since the start over the cgroups whose quota had periods in it
  // (the quota that bound); nullopt where none had one: no quota on any of them.
  std::optional<double> throttled_share() const;

 private:
  std::vector<std::pair<std::string, QuotaPeriods>> start_;  // each cpu.stat path, its periods
};

}  // namespace speedbench::measure
