// How long a run's threads were ready to run but waited for a CPU: the kernel's run-queue delay
// of each thread of this process (the second field of /proc/self/task/TID/schedstat, in ns),
// summed over the interval and divided by its wall time, so "0.9" reads as 0.9 threads waiting
// on average. Whatever held the run back shows here: other processes on its cores, more of its own
// threads than cores, and a cgroup CPU quota that throttles it (a quota of 1 core under a 2-thread
// run on 2 cores: 0.91). It needs nothing of which CPUs the run may use, so it holds in a
// container whose /proc/stat is the host's. A thread that ended during the interval takes its
// waits with it (LibTorch's pool threads and the loader's workers live as long as the run).
// Torch-free.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace speedbench::measure {

// The run-queue delay in seconds of a schedstat text ("run_ns wait_ns timeslices"); nullopt
// where the text is not one.
std::optional<double> schedstat_wait_s(const std::string& schedstat);

// Each thread's run-queue delay in seconds, by thread id.
using ThreadWaits = std::map<long, double>;

// Threads waiting on average between `before` and `after`, `wall_s` apart: each thread's delay
// since `before` (all of it for a thread born since), summed, per wall second; never below 0.
double waiting_threads(const ThreadWaits& before, const ThreadWaits& after, double wall_s);

class RunQueueWaitMeter {
 public:
  RunQueueWaitMeter();  // the interval starts now

  // Threads of this process waiting for a CPU on average since the start; nullopt where the
  // kernel keeps no schedstat (built without CONFIG_SCHED_INFO).
  std::optional<double> waiting_threads() const;

 private:
  std::optional<ThreadWaits> start_;
  std::chrono::steady_clock::time_point start_at_;
};

}  // namespace speedbench::measure
