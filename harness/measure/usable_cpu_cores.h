// The cores a process may run on: the machine's (hardware_concurrency) less what its CPU
// affinity (taskset, numactl, a Slurm or Kubernetes CPU set) and its cgroup's CPU quota
// (docker --cpus, a Kubernetes limit) take away. A run with more threads than these cores is
// oversubscribed even where the machine has cores to spare: `taskset -c 0` on a 2-core machine
// makes 2 threads take turns on one core. Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace speedbench::measure {

// Cores a cgroup's CPU quota allows, rounded up (1.5 cores of quota lets 2 threads run at once,
// each part of the time): from cgroup v2's cpu.max text ("150000 100000"; "max 100000" is no
// quota), or nothing when there is no quota or the text is not one.
std::optional<int64_t> cgroup_v2_quota_cores(const std::string& cpu_max);
// The same from cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us (a quota of -1 is none).
std::optional<int64_t> cgroup_v1_quota_cores(const std::string& quota_us,
                                             const std::string& period_us);

// The tightest quota of the cgroup at `v2_path` under `v2_mount` (cpu.max) or at `v1_path` under
// `v1_mount` (cpu.cfs_quota_us), and of every parent up to the mount's top: a limit on a parent
// (a systemd slice, a Kubernetes pod above its containers) binds its children too. The top also
// stands for a container that sees the host's cgroup path but has its own cgroup mounted there.
std::optional<int64_t> cgroup_tree_quota_cores(const std::string& v2_mount,
                                               const std::string& v2_path,
                                               const std::string& v1_mount,
                                               const std::string& v1_path);

// The CPUs this thread's affinity set lets it run on, in order; empty where it cannot be read.
std::vector<int> affinity_cpus();

// min(hardware cores, this thread's affinity set, the cgroup quota); 0 when none is known.
int64_t usable_cpu_cores();

}  // namespace speedbench::measure
