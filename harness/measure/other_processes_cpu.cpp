#include "harness/measure/other_processes_cpu.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <istream>
#include <string>
#include <thread>

namespace speedbench::measure {

namespace {

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);  // every thread's, to the nanosecond
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::optional<CpuCounters> read_cpu_counters() {
  std::ifstream in("/proc/stat");
  return cpu_counters_from_proc_stat(in, 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK)),
                                     std::chrono::steady_clock::now());
}

}  // namespace

std::optional<CpuCounters> cpu_counters_from_proc_stat(std::istream& proc_stat, double tick_s,
                                                       std::chrono::steady_clock::time_point at) {
  std::string label;
  if (!(proc_stat >> label) || label != "cpu") return std::nullopt;
  CpuCounters counters;
  counters.at = at;
  long long ticks = 0;
  int fields = 0;
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  for (; fields < 8 && proc_stat >> ticks; ++fields) {
    counters.machine_total_s += static_cast<double>(ticks) * tick_s;
    if (fields != 3 && fields != 4) counters.machine_busy_s += static_cast<double>(ticks) * tick_s;
  }
  if (fields < 4) return std::nullopt;  // not even an idle count
  return counters;
}

double busy_cores_of_others(const CpuCounters& before, const CpuCounters& after, int cores,
                            double run_cpu_s) {
  const double total_s = after.machine_total_s - before.machine_total_s;
  const double wall_s = std::chrono::duration<double>(after.at - before.at).count();
  if (total_s <= 0 || wall_s <= 0) return 0.0;
  const double machine_busy_cores =
      (after.machine_busy_s - before.machine_busy_s) / total_s * static_cast<double>(cores);
  return std::max(0.0, machine_busy_cores - run_cpu_s / wall_s);
}

OtherProcessesCpuMeter::OtherProcessesCpuMeter()
    : start_(read_cpu_counters()), start_process_cpu_s_(process_cpu_seconds()) {}

double OtherProcessesCpuMeter::own_cpu_s() const {
  return process_cpu_seconds() - start_process_cpu_s_;
}

std::optional<double> OtherProcessesCpuMeter::busy_cores(double run_cpu_s) const {
  const auto now = read_cpu_counters();
  if (!start_ || !now) return std::nullopt;
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return busy_cores_of_others(*start_, *now, cores, run_cpu_s);
}

}  // namespace speedbench::measure
