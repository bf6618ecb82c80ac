// How many cores other processes kept busy while a run trained: the machine's busy CPU time over
// the interval (the aggregate line of /proc/stat) less the run's own (this process's threads,
// from its CPU clock, and a DDP run's other ranks on this machine), per second of wall time.
// It replaces a 250 ms sample taken while the run slept before it started (a quarter of a
// one-step run's time) and sees load that arrives mid-run too. A process that competes for the
// run's cores shows at the share it got (one busy loop beside 2 threads on 2 cores: ~0.75).
// Torch-free.
#pragma once

#include <chrono>
#include <istream>
#include <optional>

namespace speedbench::measure {

// The counters an interval is measured between.
struct CpuCounters {
  double machine_busy_s = 0;   // all CPUs, /proc/stat: everything but idle and iowait
  double machine_total_s = 0;  // all CPUs, every state
  std::chrono::steady_clock::time_point at;
};

// The counters of the aggregate "cpu" line that opens /proc/stat's text (clock ticks of
// `tick_s` seconds), read at `at`; nullopt where the text does not start with one.
std::optional<CpuCounters> cpu_counters_from_proc_stat(std::istream& proc_stat, double tick_s,
                                                       std::chrono::steady_clock::time_point at);

// Cores busy with other work between `before` and `after`, for a machine of `cores` cores:
// (machine busy time / total time) x cores, less `run_cpu_s` (the run's CPU seconds over the
// interval) per wall second; never below 0 (clock ticks make a quiet machine read -0.01).
double busy_cores_of_others(const CpuCounters& before, const CpuCounters& after, int cores,
                            double run_cpu_s);

class OtherProcessesCpuMeter {
 public:
  OtherProcessesCpuMeter();  // the interval starts now

  // This process's CPU seconds since the start (what a DDP rank tells the others).
  double own_cpu_s() const;

  // Cores other processes kept busy since the start, the run's CPU time being `run_cpu_s`;
  // nullopt where /proc/stat cannot be read.
  std::optional<double> busy_cores(double run_cpu_s) const;

 private:
  std::optional<CpuCounters> start_;  // nullopt where /proc/stat cannot be read
  double start_process_cpu_s_ = 0;
};

}  // namespace speedbench::measure
