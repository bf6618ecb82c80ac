// A suite's wall-time budget (`run --suite S --time-budget SECONDS`). The runner starts a run
// only while the time spent so far plus what that run is expected to take stays within the
// budget, so that a budgeted suite stops between runs, every record whole, instead of being
// killed mid-run (which wastes the run in flight). The plan is interleaved by repetition, so
// what a budget cuts is the last repetitions, spread over every variant.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace speedbench {

// What a run is expected to take, from the runs of this suite that have finished: the mean of
// its variant's runs, else of its workload's, else of every run; 0 before the first has ended.
class RunDurationEstimate {
 public:
  void add(const std::string& workload, const std::string& variant, double seconds);
  double expected_s(const std::string& workload, const std::string& variant) const;

 private:
  struct Mean {
    double total_s = 0;
    int count = 0;
    void add(double seconds) { total_s += seconds, count += 1; }
    double value_s() const { return total_s / count; }
  };
  std::map<std::pair<std::string, std::string>, Mean> by_variant_;
  std::map<std::string, Mean> by_workload_;
  Mean all_;
};

// Whether a run expected to take `expected_s` may start `elapsed_s` into a suite with this budget
// (0: no budget). The first run always starts: nothing is known before it.
bool fits_in_budget(double budget_s, double elapsed_s, double expected_s, bool first_run);

// The progress line's ETA, `elapsed_s` into a suite that has started `started` of its `to_run`
// runs: the runs left at the pace so far, but no later than the budget's end (0: no budget),
// where the suite stops whatever is left.
struct SuiteTimeLeft {
  double seconds = 0;
  bool until_budget_end = false;  // the budget ends before the runs left would
};
SuiteTimeLeft suite_time_left(double budget_s, double elapsed_s, int64_t started, int64_t to_run);

}  // namespace speedbench
