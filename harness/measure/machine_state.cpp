#include "harness/measure/machine_state.h"

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace speedbench::measure {

namespace {

struct CpuTimes {
  long long busy = 0, total = 0;
};

// The aggregate "cpu" line of /proc/stat: user nice system idle iowait irq softirq steal ...
CpuTimes read_cpu_times() {
  std::ifstream in("/proc/stat");
  std::string label;
  CpuTimes times;
  in >> label;
  long long value = 0;
  for (int field = 0; field < 8 && in >> value; ++field) {
    times.total += value;
    if (field != 3 && field != 4) times.busy += value;  // idle and iowait are not busy
  }
  return times;
}

std::string first_line(const std::string& path, const std::string& fallback) {
  std::ifstream in(path);
  std::string line;
  return std::getline(in, line) && !line.empty() ? line : fallback;
}

}  // namespace

nlohmann::json sample_machine_state(int window_ms) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const auto before = read_cpu_times();
  std::this_thread::sleep_for(std::chrono::milliseconds(window_ms));
  const auto after = read_cpu_times();
  const auto total = after.total - before.total;
  const double busy_fraction =
      total > 0 ? static_cast<double>(after.busy - before.busy) / total : 0.0;
  double load = 0;
  std::istringstream(first_line("/proc/loadavg", "0")) >> load;
  return {{"busy_cores", busy_fraction * cores},
          {"cores", cores},
          {"load_average_1m", load},
          {"cpufreq_governor",
           first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "unavailable")}};
}

}  // namespace speedbench::measure
