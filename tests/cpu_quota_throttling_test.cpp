// The measure of a cgroup CPU quota stopping a run: the cpu.stat text of cgroup v1 and v2, the
// share with literal counts, the meter over cgroup folders, then the mechanism, with throttling
// made on purpose where this process may make a cgroup: a process that spins under half a core's
// quota is stopped in every period.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "harness/measure/cgroup_files.h"
#include "harness/measure/cpu_quota_throttling.h"
#include "tests/test_support.h"

namespace speedbench {
namespace {

using measure::CpuQuotaThrottlingMeter;
using measure::quota_periods_from_cpu_stat;
using measure::QuotaPeriods;

TEST(CpuQuotaThrottlingTest, CpuStatOfCgroupV1AndV2NameThePeriodsAndTheThrottledOnes) {
  const auto v1 = quota_periods_from_cpu_stat(
      "nr_periods 31\nnr_throttled 28\nthrottled_time 2657696712\nnr_bursts 0\nburst_time 0\n");
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->periods, 31);
  EXPECT_EQ(v1->throttled, 28);
  const auto v2 = quota_periods_from_cpu_stat(
      "usage_usec 9043\nuser_usec 5000\nsystem_usec 4043\nnr_periods 12\nnr_throttled 0\n"
      "throttled_usec 0\nnr_bursts 0\nburst_usec 0\n");
  ASSERT_TRUE(v2.has_value());
  EXPECT_EQ(v2->periods, 12);
  EXPECT_EQ(v2->throttled, 0);
  // v2's top cgroup takes no quota and lists usage only; an unreadable file is empty.
  EXPECT_FALSE(quota_periods_from_cpu_stat("usage_usec 9043\nuser_usec 5000\n").has_value());
  EXPECT_FALSE(quota_periods_from_cpu_stat("").has_value());
  EXPECT_FALSE(quota_periods_from_cpu_stat("nr_periods 31\n").has_value());
  EXPECT_FALSE(quota_periods_from_cpu_stat("nr_periods x\nnr_throttled 2\n").has_value());
}

TEST(CpuQuotaThrottlingTest, TheShareIsTheNewThrottledPeriodsOverTheNewPeriods) {
  using measure::throttled_share;
  EXPECT_DOUBLE_EQ(*throttled_share(QuotaPeriods{10, 2}, QuotaPeriods{50, 32}), 0.75);
  EXPECT_DOUBLE_EQ(*throttled_share(QuotaPeriods{10, 2}, QuotaPeriods{20, 2}), 0.0);
  // No period passed: no quota, or no thread of the cgroup ran.
  EXPECT_FALSE(throttled_share(QuotaPeriods{0, 0}, QuotaPeriods{0, 0}).has_value());
  EXPECT_FALSE(throttled_share(QuotaPeriods{10, 2}, QuotaPeriods{10, 2}).has_value());
  // Counters that went back (the cgroup was made anew) give nothing past the whole.
  EXPECT_DOUBLE_EQ(*throttled_share(QuotaPeriods{10, 9}, QuotaPeriods{20, 1}), 0.0);
}

void write_cpu_stat(const std::filesystem::path& folder, int64_t periods, int64_t throttled) {
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "cpu.stat")
      << "nr_periods " << periods << "\nnr_throttled " << throttled << "\nthrottled_time 0\n";
}

// The cgroup whose quota bound is the one named: of a child that ran unthrottled and a parent
// throttled in half its periods, the parent's share; folders without periods give nothing.
TEST(CpuQuotaThrottlingTest, TheMeterNamesTheLargestShareOverTheCgroupsWithAQuota) {
  testing::TempDir dir;
  const auto child = dir.path() / "pod" / "container";
  const auto parent = dir.path() / "pod";
  write_cpu_stat(child, 100, 0);
  write_cpu_stat(parent, 100, 0);
  std::filesystem::create_directories(dir.path() / "top");
  std::ofstream(dir.path() / "top" / "cpu.stat") << "usage_usec 9043\n";  // v2's top
  const CpuQuotaThrottlingMeter meter(
      {child.string(), parent.string() + "/", (dir.path() / "top").string(), "/no/such/cgroup"});
  EXPECT_FALSE(meter.throttled_share().has_value()) << "no period passed yet";
  write_cpu_stat(child, 140, 0);
  write_cpu_stat(parent, 140, 20);
  ASSERT_TRUE(meter.throttled_share().has_value());
  EXPECT_DOUBLE_EQ(*meter.throttled_share(), 0.5);
  // Where no cgroup has a quota, there is nothing to measure.
  const CpuQuotaThrottlingMeter no_quota({(dir.path() / "top").string()});
  EXPECT_FALSE(no_quota.throttled_share().has_value());
}

// A new cgroup of half a core's quota over 10 ms periods (cgroup v1's cpu controller or v2's),
// removed when done; empty where this process may not make one (not root, no cpu controller).
class HalfCoreCgroup {
 public:
  HalfCoreCgroup() {
    const std::string name = "speedbench-test-" + std::to_string(std::random_device()());
    if (try_make(std::string(measure::kCgroupV1CpuMount) + "/" + name,
                 {{"cpu.cfs_period_us", "10000"}, {"cpu.cfs_quota_us", "5000"}}))
      return;
    try_make(std::string(measure::kCgroupV2Mount) + "/" + name, {{"cpu.max", "5000 10000"}});
  }
  ~HalfCoreCgroup() {
    if (!folder_.empty()) rmdir(folder_.c_str());
  }
  HalfCoreCgroup(const HalfCoreCgroup&) = delete;
  HalfCoreCgroup& operator=(const HalfCoreCgroup&) = delete;
  const std::string& folder() const { return folder_; }

 private:
  bool try_make(const std::string& folder,
                const std::vector<std::pair<std::string, std::string>>& files) {
    if (mkdir(folder.c_str(), 0755) != 0) return false;
    for (const auto& [file, value] : files) {
      std::ofstream out(folder + "/" + file);
      if (!(out << value << std::flush)) {
        rmdir(folder.c_str());
        return false;
      }
    }
    folder_ = folder;
    return true;
  }
  std::string folder_;
};

double monotonic_s() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

TEST(CpuQuotaThrottlingTest, AProcessThatSpinsUnderHalfACoresQuotaIsThrottledInMostPeriods) {
  const HalfCoreCgroup cgroup;
  if (cgroup.folder().empty()) GTEST_SKIP() << "this process may not make a cgroup with a quota";
  const CpuQuotaThrottlingMeter meter({cgroup.folder()});
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // joins the cgroup, then spins for 0.3 s of wall time
    const int procs = open((cgroup.folder() + "/cgroup.procs").c_str(), O_WRONLY);
    const std::string pid = std::to_string(getpid());
    if (procs < 0 || write(procs, pid.data(), pid.size()) < 0) _exit(2);
    close(procs);
    const double until = monotonic_s() + 0.3;
    while (monotonic_s() < until) {
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child could not join";
  const auto share = meter.throttled_share();
  ASSERT_TRUE(share.has_value());
  EXPECT_GT(*share, 0.5);  // half a core's quota runs out in each period a spinning thread has
}

}  // namespace
}  // namespace speedbench
