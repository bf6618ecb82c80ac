// Progress lines of a long run, at most one every `period_s` seconds (none when the period is 0).
#pragma once

#include <chrono>
#include <functional>
#include <string>

namespace speedbench {

class ProgressReporter {
 public:
  using Sink = std::function<void(const std::string& line)>;
  // `sink` must outlive the reporter.
  ProgressReporter(const Sink& sink, double period_s) : sink_(sink), period_s_(period_s) {}

  // Calls `make_line` (only then) and passes its line to the sink when a period has passed.
  void maybe_report(const std::function<std::string()>& make_line) {
    if (!sink_ || period_s_ <= 0) return;  // no clock read in the timed step when quiet
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_).count() < period_s_) return;
    last_ = now;
    sink_(make_line());
  }

 private:
  using Clock = std::chrono::steady_clock;
  const Sink& sink_;
  double period_s_;
  Clock::time_point last_ = Clock::now();
};

}  // namespace speedbench
