// The measure of other processes' load and the hypervisor's steal over a run's training: the
// arithmetic with literal counters, then the two mechanisms it stands on, with CPU time spent on
// purpose: another process's CPU shows in /proc/stat, and every thread of this process is its own.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <sstream>
#include <thread>

#include "harness/measure/other_processes_cpu.h"

namespace speedbench {
namespace {

using measure::busy_cores_of_others;
using measure::CpuCounters;
using measure::OtherProcessesCpuMeter;

double cpu_clock_s(clockid_t clock) {
  timespec now{};
  clock_gettime(clock, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Spins until `clock` (this thread's or this process's CPU time) has advanced `seconds`: the CPU
// time is spent whatever else the machine runs (ctest runs two test processes at once).
void spend_cpu(clockid_t clock, double seconds) {
  const double until = cpu_clock_s(clock) + seconds;
  while (cpu_clock_s(clock) < until) {
  }
}

TEST(BusyCoresOfOthersTest, IsTheBusyCoresLessTheRunsCpuPerWallSecond) {
  const auto t0 = std::chrono::steady_clock::time_point{};
  const CpuCounters before{/*busy_s=*/10.0, /*stolen_s=*/0.0, /*total_s=*/100.0, /*cpus=*/2, t0};
  // Over 2 s on 2 cores (4 CPU seconds), 3 of them busy: 1.5 cores.
  const CpuCounters after{13.0, 0.0, 104.0, 2, t0 + std::chrono::seconds(2)};
  EXPECT_DOUBLE_EQ(busy_cores_of_others(before, after, /*run_cpu_s=*/0.0), 1.5);
  EXPECT_DOUBLE_EQ(busy_cores_of_others(before, after, /*run_cpu_s=*/2.0), 0.5);
  // The run's CPU time is measured more finely than the machine's ticks: never below 0.
  EXPECT_DOUBLE_EQ(busy_cores_of_others(before, after, /*run_cpu_s=*/3.1), 0.0);
  // The busy share scales to the CPUs counted, whatever the ticks per second.
  const CpuCounters after_on_4{13.0, 0.0, 108.0, 4, t0 + std::chrono::seconds(2)};
  EXPECT_DOUBLE_EQ(busy_cores_of_others(before, after_on_4, 0.0), 1.5);
  EXPECT_DOUBLE_EQ(busy_cores_of_others(before, before, 0.0), 0.0);  // no interval
}

// The hypervisor's steal is not other processes' load: its own measure, of the same CPUs.
TEST(BusyCoresOfOthersTest, StealIsTheHypervisorsApartFromOtherProcesses) {
  const auto t0 = std::chrono::steady_clock::time_point{};
  const CpuCounters before{/*busy_s=*/10.0, /*stolen_s=*/1.0, /*total_s=*/100.0, /*cpus=*/2, t0};
  // Over 2 s on 2 cores (4 CPU seconds): 2 busy with this machine's work, 1 stolen.
  const CpuCounters after{12.0, 2.0, 104.0, 2, t0 + std::chrono::seconds(2)};
  EXPECT_DOUBLE_EQ(measure::stolen_cores(before, after), 0.5);
  EXPECT_DOUBLE_EQ(busy_cores_of_others(before, after, /*run_cpu_s=*/1.0), 0.5);
  EXPECT_DOUBLE_EQ(measure::stolen_cores(before, before), 0.0);  // no interval
}

// user nice system idle iowait irq softirq steal guest guest_nice, for all CPUs (their sum), then
// for each
constexpr const char* kProcStat =
    "cpu  100 5 50 1000 20 3 2 5 7 0\n"
    "cpu0 60 2 25 500 10 1 1 4 3 0\n"
    "cpu1 30 3 20 300 5 1 1 1 2 0\n"
    "cpu2 10 0 5 200 5 1 0 0 2 0\n"
    "intr 5 1 2\n";

TEST(BusyCoresOfOthersTest, ProcStatsCpuLinesAreBusyButForIdleIowaitAndSteal) {
  std::istringstream text(kProcStat);
  const auto all = measure::cpu_counters_from_proc_stat(text, 0.01, {}, /*cpus=*/{});
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(all->cpus, 3);
  EXPECT_DOUBLE_EQ(all->busy_s, 1.6);     // 100 + 5 + 50 + 3 + 2 ticks over the three
  EXPECT_DOUBLE_EQ(all->stolen_s, 0.05);  // 4 + 1 + 0
  EXPECT_DOUBLE_EQ(all->total_s, 11.85);  // and 1000 + 20 more; guest is in user
  std::istringstream not_stat("intr 5 1 2\n");
  EXPECT_FALSE(measure::cpu_counters_from_proc_stat(not_stat, 0.01, {}, {}).has_value());
  std::istringstream cut_short("cpu  100 5\ncpu0 100 5\n");
  EXPECT_FALSE(measure::cpu_counters_from_proc_stat(cut_short, 0.01, {}, {}).has_value());
}

// A run pinned to some CPUs (taskset) counts only theirs: load on the others competes with
// nothing of it.
TEST(BusyCoresOfOthersTest, APinnedRunCountsTheCpusItMayUseOnly) {
  std::istringstream text(kProcStat);
  const auto pinned = measure::cpu_counters_from_proc_stat(text, 0.01, {}, /*cpus=*/{0, 2});
  ASSERT_TRUE(pinned.has_value());
  EXPECT_EQ(pinned->cpus, 2);
  EXPECT_DOUBLE_EQ(pinned->busy_s, 1.05);    // cpu0: 60 + 2 + 25 + 1 + 1; cpu2: 10 + 5 + 1
  EXPECT_DOUBLE_EQ(pinned->stolen_s, 0.04);  // cpu0's 4 (cpu1's 1 is another CPU's)
  EXPECT_DOUBLE_EQ(pinned->total_s, 8.24);   // and 500 + 10 + 200 + 5 idle and iowait
  std::istringstream offline(kProcStat);     // a CPU without a line: not counted as idle
  EXPECT_FALSE(measure::cpu_counters_from_proc_stat(offline, 0.01, {}, {0, 7}).has_value());
}

TEST(OtherProcessesCpuMeterTest, AnotherProcessSpendingCpuIsOtherLoad) {
  const auto start = std::chrono::steady_clock::now();
  const OtherProcessesCpuMeter meter;
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    spend_cpu(CLOCK_PROCESS_CPUTIME_ID, 0.3);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);  // this process sleeps meanwhile
  const auto load = meter.load(meter.own_cpu_s());
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(load.has_value()) << "/proc/stat unreadable";
  EXPECT_GE(load->busy_cores * wall_s, 0.2)
      << "the child's 0.3 CPU seconds over " << wall_s << " s";
}

TEST(OtherProcessesCpuMeterTest, EveryThreadOfThisProcessIsItsOwn) {
  const OtherProcessesCpuMeter meter;
  std::thread worker([] { spend_cpu(CLOCK_THREAD_CPUTIME_ID, 0.3); });
  worker.join();  // the main thread waits without spending CPU
  EXPECT_GE(meter.own_cpu_s(), 0.3);
  EXPECT_LT(meter.own_cpu_s(), 0.5);
}

}  // namespace
}  // namespace speedbench
