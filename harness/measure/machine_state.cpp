#include "harness/measure/machine_state.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace speedbench::measure {

namespace {

std::string first_line(const std::string& path, const std::string& fallback) {
  std::ifstream in(path);
  std::string line;
  return std::getline(in, line) && !line.empty() ? line : fallback;
}

}  // namespace

nlohmann::json read_machine_state() {
  double load = 0;
  std::istringstream(first_line("/proc/loadavg", "0")) >> load;
  return {{"cores", std::max(1u, std::thread::hardware_concurrency())},
          {"load_average_1m", load},
          {"cpufreq_governor",
           first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "unavailable")}};
}

}  // namespace speedbench::measure
