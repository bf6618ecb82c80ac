#include "harness/measure/other_processes_cpu.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/measure/usable_cpu_cores.h"

namespace speedbench::measure {

namespace {

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);  // every thread's, to the nanosecond
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Whether `label` is "cpuN" for an N in `cpus`, or for any N where `cpus` is empty.
bool names_one_of(const std::string& label, const std::vector<int>& cpus) {
  if (label.size() <= 3 || label.size() > 12 ||
      label.find_first_not_of("0123456789", 3) != std::string::npos)
    return false;
  return cpus.empty() ||
         std::find(cpus.begin(), cpus.end(), std::stoi(label.substr(3))) != cpus.end();
}

std::optional<CpuCounters> read_cpu_counters(const std::vector<int>& cpus) {
  std::ifstream in("/proc/stat");
  return cpu_counters_from_proc_stat(in, 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK)),
                                     std::chrono::steady_clock::now(), cpus);
}

}  // namespace

std::optional<CpuCounters> cpu_counters_from_proc_stat(std::istream& proc_stat, double tick_s,
                                                       std::chrono::steady_clock::time_point at,
                                                       const std::vector<int>& cpus) {
  CpuCounters counters;
  counters.at = at;
  // The CPU lines come first: "cpu" (the sum of the others), then "cpu0", "cpu1", ...
  for (std::string line; std::getline(proc_stat, line) && line.rfind("cpu", 0) == 0;) {
    std::istringstream fields(line);
    std::string label;
    fields >> label;
    if (!names_one_of(label, cpus)) continue;
    long long ticks = 0;
    int field = 0;
    // user nice system idle iowait irq softirq steal (guest time is already in user)
    for (; field < 8 && fields >> ticks; ++field) {
      const double seconds = static_cast<double>(ticks) * tick_s;
      counters.total_s += seconds;
      if (field == 7) {
        counters.stolen_s += seconds;
      } else if (field != 3 && field != 4) {
        counters.busy_s += seconds;
      }
    }
    if (field < 4) return std::nullopt;  // not even an idle count
    counters.cpus += 1;
  }
  if (counters.cpus == 0 || (!cpus.empty() && counters.cpus != static_cast<int>(cpus.size())))
    return std::nullopt;
  return counters;
}

double busy_cores_of_others(const CpuCounters& before, const CpuCounters& after, double run_cpu_s) {
  const double total_s = after.total_s - before.total_s;
  const double wall_s = std::chrono::duration<double>(after.at - before.at).count();
  if (total_s <= 0 || wall_s <= 0) return 0.0;
  const double busy_cores = (after.busy_s - before.busy_s) / total_s * after.cpus;
  return std::max(0.0, busy_cores - run_cpu_s / wall_s);
}

double stolen_cores(const CpuCounters& before, const CpuCounters& after) {
  const double total_s = after.total_s - before.total_s;
  if (total_s <= 0) return 0.0;
  return std::max(0.0, (after.stolen_s - before.stolen_s) / total_s * after.cpus);
}

OtherProcessesCpuMeter::OtherProcessesCpuMeter()
    : cpus_(affinity_cpus()),
      start_(read_cpu_counters(cpus_)),
      start_process_cpu_s_(process_cpu_seconds()) {}

double OtherProcessesCpuMeter::own_cpu_s() const {
  return process_cpu_seconds() - start_process_cpu_s_;
}

std::optional<OthersLoad> OtherProcessesCpuMeter::load(double run_cpu_s) const {
  const auto now = read_cpu_counters(cpus_);
  if (!start_ || !now) return std::nullopt;
  return OthersLoad{busy_cores_of_others(*start_, *now, run_cpu_s),
                    measure::stolen_cores(*start_, *now)};
}

}  // namespace speedbench::measure
