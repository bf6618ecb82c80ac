#include "harness/measure/run_queue_wait.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace speedbench::measure {

namespace {

// Every thread of this process that still has its schedstat; nullopt where the main thread has
// none to read (no schedstat in this kernel).
std::optional<ThreadWaits> read_thread_waits() {
  ThreadWaits waits;
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return std::nullopt;
  while (const dirent* entry = readdir(tasks)) {
    const std::string name = entry->d_name;
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in("/proc/self/task/" + name + "/schedstat");
    std::string text;
    std::getline(in, text);
    // A thread that ended since the listing has no file left: it is not counted.
    if (const auto wait_s = schedstat_wait_s(text)) waits[std::stol(name)] = *wait_s;
  }
  closedir(tasks);
  if (waits.empty()) return std::nullopt;
  return waits;
}

}  // namespace

std::optional<double> schedstat_wait_s(const std::string& schedstat) {
  std::istringstream fields(schedstat);
  long long run_ns = 0, wait_ns = 0, timeslices = 0;
  std::string rest;
  if (!(fields >> run_ns >> wait_ns >> timeslices) || (fields >> rest) || wait_ns < 0)
    return std::nullopt;
  return static_cast<double>(wait_ns) * 1e-9;
}

double waiting_threads(const ThreadWaits& before, const ThreadWaits& after, double wall_s) {
  if (wall_s <= 0) return 0.0;
  double waited_s = 0;
  for (const auto& [thread, wait_s] : after) {
    const auto earlier = before.find(thread);
    waited_s += wait_s - (earlier == before.end() ? 0.0 : earlier->second);
  }
  return std::max(0.0, waited_s / wall_s);
}

RunQueueWaitMeter::RunQueueWaitMeter()
    : start_(read_thread_waits()), start_at_(std::chrono::steady_clock::now()) {}

std::optional<double> RunQueueWaitMeter::waiting_threads() const {
  const auto now = read_thread_waits();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_at_).count();
  if (!start_ || !now) return std::nullopt;
  return measure::waiting_threads(*start_, *now, wall_s);
}

}  // namespace speedbench::measure
