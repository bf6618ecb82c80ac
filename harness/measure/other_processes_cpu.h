// How many cores other processes kept busy while a run trained: the busy CPU time of the cores
// the run may use (the /proc/stat lines of the CPUs in its affinity mask: a run pinned with
// taskset is not flagged for load on the other cores; a container's CPU quota leaves the mask
// whole, and the report counts the cores beyond the quota as spare by
// environment.cpu_cores_affinity) over the interval, less the run's own (this process's threads,
// from its CPU clock, and a DDP run's other ranks on this machine), per
// second of wall time. It replaces a 250 ms sample of the whole machine taken while the run slept
// before it started (a quarter of a one-step run's time) and sees load that arrives mid-run
// too. A process that competes for the run's cores shows at the share it got (one busy loop
// beside 2 threads on 2 cores: ~0.93). In a virtual machine the hypervisor may also give the
// run's virtual CPUs' time to other guests: that is steal, measured apart (`stolen_cores`), so
// that a slow run on a crowded host is not blamed on processes that `top` cannot show. Torch-free.
#pragma once

#include <chrono>
#include <istream>
#include <optional>
#include <vector>

namespace speedbench::measure {

// The counters an interval is measured between, over a set of CPUs.
struct CpuCounters {
  double busy_s = 0;    // this machine's work: everything but idle, iowait and steal
  double stolen_s = 0;  // steal: time the hypervisor ran something else on these CPUs
  double total_s = 0;   // every state
  int cpus = 0;         // how many CPUs the counts cover
  std::chrono::steady_clock::time_point at;
};

// The counters of the CPUs `cpus` (the lines "cpuN" of /proc/stat's text, clock ticks of
// `tick_s` seconds), or of every CPU listed where `cpus` is empty, read at `at`; nullopt where
// the text lists no CPU or a named CPU has no line (offline).
std::optional<CpuCounters> cpu_counters_from_proc_stat(std::istream& proc_stat, double tick_s,
                                                       std::chrono::steady_clock::time_point at,
                                                       const std::vector<int>& cpus);

// Cores busy with other work between `before` and `after`: (busy time / total time) x the CPUs
// counted, less `run_cpu_s` (the run's CPU seconds over the interval) per wall second; never
// below 0 (clock ticks make a quiet machine read -0.01).
double busy_cores_of_others(const CpuCounters& before, const CpuCounters& after, double run_cpu_s);

// Cores the hypervisor took between `before` and `after`: steal time / total time x the CPUs
// counted (0 on a machine that is not virtual, or whose hypervisor does not report steal).
double stolen_cores(const CpuCounters& before, const CpuCounters& after);

// What others took of a run's CPUs over an interval, in cores.
struct OthersLoad {
  double busy_cores = 0;    // other processes of this machine (busy_cores_of_others)
  double stolen_cores = 0;  // the hypervisor (stolen_cores)
};

class OtherProcessesCpuMeter {
 public:
  OtherProcessesCpuMeter();  // the interval starts now, over the CPUs this process may use now

  // This process's CPU seconds since the start (what a DDP rank tells the others).
  double own_cpu_s() const;

  // What others took of the run's CPUs since the start, the run's CPU time being `run_cpu_s`;
  // nullopt where /proc/stat cannot be read.
  std::optional<OthersLoad> load(double run_cpu_s) const;

 private:
  std::vector<int> cpus_;             // the affinity mask's CPUs; empty (unknown): every CPU
  std::optional<CpuCounters> start_;  // nullopt where /proc/stat cannot be read
  double start_process_cpu_s_ = 0;
};

}  // namespace speedbench::measure
