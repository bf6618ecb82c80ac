// The measure of a run's threads waiting for a CPU: the schedstat text, the arithmetic with
// literal delays, then the mechanism, with waits made on purpose: two threads that each need
// 0.3 s of CPU time on one core wait for each other.
#include <gtest/gtest.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "harness/measure/run_queue_wait.h"

namespace speedbench {
namespace {

using measure::schedstat_wait_s;
using measure::ThreadWaits;

TEST(RunQueueWaitTest, SchedstatsSecondFieldIsTheWaitInNanoseconds) {
  EXPECT_DOUBLE_EQ(*schedstat_wait_s("368128029 83365910 774\n"), 0.08336591);
  EXPECT_DOUBLE_EQ(*schedstat_wait_s("0 0 0"), 0.0);
  EXPECT_FALSE(schedstat_wait_s("").has_value());  // no schedstat in this kernel
  EXPECT_FALSE(schedstat_wait_s("1 2").has_value());
  EXPECT_FALSE(schedstat_wait_s("1 2 3 4").has_value());
  EXPECT_FALSE(schedstat_wait_s("1 -2 3").has_value());
}

TEST(RunQueueWaitTest, WaitingThreadsAreEachThreadsNewWaitPerWallSecond) {
  const ThreadWaits before = {{100, 1.0}, {101, 0.5}, {102, 2.0}};
  // Over 2 s: thread 100 waited 1 s more, 101 0.5 s, 102 ended (its waits are gone), and 103,
  // born since, 1.5 s in all.
  const ThreadWaits after = {{100, 2.0}, {101, 1.0}, {103, 1.5}};
  EXPECT_DOUBLE_EQ(measure::waiting_threads(before, after, 2.0), 1.5);
  EXPECT_DOUBLE_EQ(measure::waiting_threads(before, before, 2.0), 0.0);
  EXPECT_DOUBLE_EQ(measure::waiting_threads(before, after, 0.0), 0.0);  // no interval
  // A thread id the kernel reused for a new thread reads less than before: never below 0.
  EXPECT_DOUBLE_EQ(measure::waiting_threads({{100, 5.0}}, {{100, 1.0}}, 2.0), 0.0);
}

double thread_cpu_s() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Restores this thread's CPU affinity when the test ends, however it ends.
class PinnedToOneCpu {
 public:
  PinnedToOneCpu() {
    sched_getaffinity(0, sizeof saved_, &saved_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
  }
  ~PinnedToOneCpu() { sched_setaffinity(0, sizeof saved_, &saved_); }
  bool pinned() const { return pinned_; }

 private:
  cpu_set_t saved_{};
  bool pinned_ = false;
};

TEST(RunQueueWaitMeterTest, ThreadsThatShareOneCoreWaitForIt) {
  if (!std::filesystem::exists("/proc/self/schedstat"))
    GTEST_SKIP() << "this kernel keeps no schedstat (CONFIG_SCHED_INFO): the measure is null";
  const PinnedToOneCpu pin;  // the threads below inherit the one CPU
  ASSERT_TRUE(pin.pinned());
  const measure::RunQueueWaitMeter meter;
  // Each thread spins for 0.3 s of its own CPU time, then sleeps until it is read: a thread that
  // ended would take its waits with it.
  std::atomic<int> spun{0};
  std::atomic<bool> read{false};
  auto spin = [&] {
    const double until = thread_cpu_s() + 0.3;
    while (thread_cpu_s() < until) {
    }
    spun += 1;
    while (!read) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  const auto start = std::chrono::steady_clock::now();
  std::thread first(spin), second(spin);
  while (spun < 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto waiting = meter.waiting_threads();
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  read = true;
  first.join();
  second.join();
  ASSERT_TRUE(waiting.has_value()) << "no /proc/self/task/*/schedstat";
  // 0.6 CPU seconds on one core: while one ran the other waited, about 0.3 s in all at the least.
  EXPECT_GE(*waiting * wall_s, 0.2) << "over " << wall_s << " s";
}

}  // namespace
}  // namespace speedbench
