// The reliability contract end to end: crashed runs are recorded and the suite goes on; a suite
// killed with SIGKILL at random points and resumed ends with exactly one record per planned run
// and a file that parses; a recorded run reproduces from its record (and a tampered one does
// not); the report flags unhealthy measurements.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <random>
#include <thread>

#include "build_paths.h"
#include "harness/measure/thread_oversubscription.h"
#include "harness/measure/usable_cpu_cores.h"
#include "harness/report/run_health.h"
#include "harness/results/records_file.h"
#include "tests/cli_fixtures.h"
#include "tests/test_support.h"

extern char** environ;

namespace speedbench {
namespace {

using testing::only_run_folder;
using testing::run_command;
using testing::TempDir;
using testing::write_text;

const std::string kSpeedbench = testing::speedbench_executable();

// A tiny row-LSTM workload: a run takes about a second, mostly process start.
const char* kTinyBase =
    R"("base": {"model": {"arch": "row_rnn", "hidden": 16}, "batch_size": 32, "max_steps": 6,
    "warmup_steps": 1, "progress_every_s": 0, "threads": 1, "data": {"train_samples": 256, "test_samples": 64}})";

TEST(CrashIsolationTest, SegfaultAbortOomAndDivergenceAreRecordedAndTheSuiteGoesOn) {
  TempDir dir;
  write_text(dir.file("s.json"),
             std::string(R"({"name": "faults", "design": "grid", "repetitions": 1, )") + kTinyBase +
                 R"(, "workloads": [{"name": "lstm"}], "variants": [
      {"name": "baseline"}, {"name": "segfault"}, {"name": "abort"}, {"name": "oom"},
      {"name": "diverges", "config": {"optimizer": {"name": "sgd", "lr": 5000}, "divergence_loss": 10}},
      {"name": "bad_input"}, {"name": "after"}]})");
  const auto result =
      run_command("SPEEDBENCH_INJECT_FAULT=1:segfault,2:abort,3:oom,5:bad_input " + kSpeedbench +
                  " run --suite " + dir.file("s.json") + " --out " + dir.file("results"));
  EXPECT_EQ(result.exit_code, 1) << result.output;  // crashed runs make the suite fail...
  const auto folder = only_run_folder(dir.path() / "results" / "faults");
  const auto records = read_records((folder / "runs.jsonl").string());
  ASSERT_EQ(records.size(), 7u) << result.output;  // ...after every run had its turn
  std::map<std::string, const Record*> by_variant;
  for (const auto& r : records) by_variant[r.variant] = &r;
  EXPECT_EQ(by_variant["baseline"]->status, RunStatus::kOk);
  EXPECT_EQ(by_variant["segfault"]->status, RunStatus::kCrashed);
  EXPECT_NE(by_variant["segfault"]->message.find("signal 11"), std::string::npos)
      << by_variant["segfault"]->message;
  EXPECT_EQ(by_variant["abort"]->status, RunStatus::kCrashed);
  EXPECT_NE(by_variant["abort"]->message.find("signal 6"), std::string::npos)
      << by_variant["abort"]->message;
  EXPECT_EQ(by_variant["oom"]->status, RunStatus::kOutOfMemory);
  EXPECT_NE(by_variant["oom"]->message.find("can't allocate"), std::string::npos)
      << by_variant["oom"]->message;
  EXPECT_EQ(by_variant["diverges"]->status, RunStatus::kDiverged);
  // Bad input found only at run time (the suite checks what it can up front): the child's error
  // line is in the record, not only on the console, and names the run's config file.
  EXPECT_EQ(by_variant["bad_input"]->status, RunStatus::kCrashed);
  const auto& bad_input_message = by_variant["bad_input"]->message;
  EXPECT_NE(bad_input_message.find("exited with code 2: "), std::string::npos) << bad_input_message;
  EXPECT_NE(bad_input_message.find(".config.json: field 'injected': bad input that only the run"),
            std::string::npos)
      << bad_input_message;
  EXPECT_TRUE(std::filesystem::exists(folder / ".run-5.config.json"))
      << "the file its error names is kept";
  EXPECT_FALSE(std::filesystem::exists(folder / ".run-1.config.json"))
      << "a crashed run's error does not name it: not kept";
  EXPECT_NE(result.output.find("speedbench: error: " + (folder / ".run-5.config.json").string() +
                               ": field 'injected'"),
            std::string::npos)
      << "the child's stderr still reaches the console\n"
      << result.output;
  EXPECT_EQ(by_variant["after"]->status, RunStatus::kOk);

  const auto report = run_command(kSpeedbench + " report " + folder.string() + " --claims " +
                                  testing::empty_claims_file(dir));
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string markdown = testing::read_text((folder / "report.md").string());
  for (const char* shown : {"| lstm | segfault | failed |", "| lstm | abort | failed |",
                            "| lstm | oom | failed |", "| lstm | diverges | failed |"}) {
    EXPECT_NE(markdown.find(shown), std::string::npos) << shown << "\n" << markdown;
  }
}

pid_t spawn_quietly(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

bool has_plan_folder(const std::filesystem::path& suite_root) {
  if (!std::filesystem::exists(suite_root)) return false;
  for (const auto& entry : std::filesystem::directory_iterator(suite_root)) {
    if (std::filesystem::exists(entry.path() / "plan.json")) return true;
  }
  return false;
}

TEST(KillResumeTest, TenSigkillsAtRandomPointsThenResumeGiveExactlyOneRecordPerRun) {
  TempDir dir;
  // 15 runs of about a second each: ten kills, 1.3 s apart on average, leave some of them to the
  // final resume (a kill that lands after the suite has ended proves nothing).
  write_text(dir.file("s.json"),
             std::string(R"({"name": "killed", "design": "grid", "repetitions": 5, )") + kTinyBase +
                 R"(, "workloads": [{"name": "lstm"}], "variants": [{"name": "a"},
      {"name": "b", "config": {"batch_size": 16}}, {"name": "c", "config": {"optimizer": {"lr": 0.01}}}]})");
  const auto results = dir.file("results");
  const auto suite_root = std::filesystem::path(results) / "killed";
  std::mt19937 random(20261130);
  std::uniform_int_distribution<int> delay_ms(150, 2500);
  int kills = 0;
  for (int attempt = 0; attempt < 10; ++attempt) {
    std::vector<std::string> argv = {kSpeedbench,        "run",   "--suite",
                                     dir.file("s.json"), "--out", results};
    if (has_plan_folder(suite_root)) argv.push_back("--resume");
    const pid_t pid = spawn_quietly(argv);
    ASSERT_GT(pid, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(random)));
    int status = 0;
    // A kill counts only if it hit the runner mid-suite (kill() also "succeeds" on a runner
    // that already finished and waits to be reaped).
    if (waitpid(pid, &status, WNOHANG) == 0) {
      kills += ::kill(pid, SIGKILL) == 0;
      waitpid(pid, &status, 0);
    }
  }
  // The children died with the runner: give the kernel a moment, then finish the suite.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  std::vector<std::string> argv = {kSpeedbench,        "run",   "--suite",
                                   dir.file("s.json"), "--out", results};
  if (has_plan_folder(suite_root)) argv.push_back("--resume");
  std::string command;
  for (const auto& a : argv) command += a + " ";
  const auto final_run = run_command(command);
  ASSERT_EQ(final_run.exit_code, 0) << final_run.output;
  const auto folder = only_run_folder(suite_root);
  const auto records = read_records((folder / "runs.jsonl").string());  // throws on a bad line
  std::map<int64_t, int> per_run;
  for (const auto& r : records) per_run[r.run_index] += 1;
  ASSERT_EQ(per_run.size(), 15u) << final_run.output;
  for (const auto& [index, count] : per_run) EXPECT_EQ(count, 1) << "run " << index;
  std::printf(
      "SIGKILLs that hit a running suite: %d of 10; after resume every planned run has "
      "exactly one record\n",
      kills);
  EXPECT_GE(kills, 5) << "too few kills landed mid-suite for the test to mean anything";
}

TEST(ReproduceTest, ADeterministicRunReproducesBitForBitAndATamperedRecordDoesNot) {
  TempDir dir;
  write_text(dir.file("c.json"),
             R"({"model": {"arch": "row_rnn", "hidden": 16}, "batch_size": 32, "max_steps": 8,
    "warmup_steps": 1, "progress_every_s": 0, "threads": 1, "data": {"train_samples": 256, "test_samples": 64}})");
  const auto recorded = run_command(kSpeedbench + " run-one --deterministic --quiet --config " +
                                    dir.file("c.json") + " --records " + dir.file("runs.jsonl"));
  ASSERT_EQ(recorded.exit_code, 0) << recorded.output;
  const auto same = run_command(kSpeedbench + " reproduce " + dir.path().string());  // its folder
  EXPECT_EQ(same.exit_code, 0) << same.output;
  EXPECT_NE(same.output.find(" from " + dir.file("runs.jsonl") + "\n"), std::string::npos)
      << same.output;
  EXPECT_NE(same.output.find("| loss curve (bitwise) | 8 losses | identical | yes |"),
            std::string::npos)
      << same.output;
  EXPECT_NE(same.output.find("reproduced"), std::string::npos) << same.output;

  // The same record with another seed in its config: the rerun trains differently.
  auto record = read_records(dir.file("runs.jsonl")).front();
  record.config["seed"] = 7;
  append_record(dir.file("tampered.jsonl"), record);
  const auto other = run_command(kSpeedbench + " reproduce " + dir.file("tampered.jsonl"));
  EXPECT_EQ(other.exit_code, 1) << other.output;
  EXPECT_NE(other.output.find("differs from step 1"), std::string::npos) << other.output;
  EXPECT_NE(other.output.find("NOT reproduced"), std::string::npos) << other.output;

  // Without deterministic mode the curve is shown for information, not judged: another seed
  // changes it, yet the exact checks agree.
  record.config["deterministic"] = false;
  append_record(dir.file("free.jsonl"), record);
  const auto unjudged = run_command(kSpeedbench + " reproduce " + dir.file("free.jsonl"));
  EXPECT_EQ(unjudged.exit_code, 0) << unjudged.output;
  EXPECT_NE(
      unjudged.output.find("| loss curve (not deterministic: not judged) | 8 losses | differs "
                           "from step 1 | - |"),
      std::string::npos)
      << unjudged.output;
}

TEST(MeasurementHealthTest, TheReportFlagsNoisyLoadedOversubscribedAndUnderRepeatedMeasurements) {
  TempDir dir;
  std::vector<Record> records;
  for (int rep = 0; rep < 3; ++rep) {
    records.push_back(testing::synthetic_record("w", "baseline", rep, 100, 1000));
    records.push_back(testing::synthetic_record("w", "amp", rep, 150, 1000));
    records.back().seed = 10 + rep;  // pairs with no baseline run: an unpaired interval
  }
  records[0].metrics.step_ms = {10, 10, 30, 10};  // CV far above 10%
  records[1].environment["machine_at_start"] = {{"busy_cores", 1.5},
                                                {"cpufreq_governor", "powersave"}};
  records[2].environment["torch_threads"] = 4;  // on a CPU, 2 ranks of 4 threads on 2 cores
  records[2].environment["cpu_cores"] = 2;
  records[2].metrics.distributed.world_size = 2;
  records[3].environment["torch_threads"] = 8;  // on a GPU the CPU threads are not flagged
  records[3].environment["cpu_cores"] = 2;
  records[3].config["device"] = "cuda";
  records[4].environment["torch_threads"] = 2;  // as many as the cores
  records[4].environment["cpu_cores"] = 2;
  records[5].environment["torch_threads"] = 2;  // 2 cores, but taskset let it use 1
  records[5].environment["cpu_cores"] = 2;
  records[5].environment["cpu_cores_usable"] = 1;
  records[3].metrics.other_processes_busy_cores = 0.0;  // measured in training, below 0.25
  records[5].metrics.other_processes_busy_cores = 0.2;
  records[5].metrics.stolen_cores = 0.1;            // below 0.25
  records[5].metrics.cpu_wait_threads = 0.05;       // likewise
  records[5].metrics.quota_throttled_share = 0.04;  // below 0.1
  for (const auto& r : records) append_record(dir.file("run/runs.jsonl"), r);
  const auto result = run_command(kSpeedbench + " report " + dir.file("run") + " --claims " +
                                  testing::empty_claims_file(dir));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string markdown = testing::read_text(dir.file("run/report.md"));
  EXPECT_NE(markdown.find("## Measurement health"), std::string::npos);
  EXPECT_NE(markdown.find("4 of 6 runs flagged"), std::string::npos) << markdown;
  // The console names what the flags are, each kind with its number of runs.
  EXPECT_NE(result.output.find("measurement health: 4 of 6 runs flagged (noisy steps: 1, other "
                               "load: 1, frequency scaling: 1, oversubscribed: 2)"),
            std::string::npos)
      << result.output;
  EXPECT_NE(
      markdown.find("| w | baseline | 1 | oversubscribed: 8 threads (2 ranks x 4) on 2 cores |"),
      std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| w | amp | 2 | oversubscribed: 2 threads on 1 core |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("| w | baseline | 0 | step-time CV"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find(
                "other load at start: 1.50 cores busy; CPU frequency scaling (governor powersave)"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("Fewer than 5 runs on a side"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("Other processes' load while the runs trained: median 0.10 cores, 90th "
                          "percentile 0.18, most 0.20, over 2 runs"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find("The hypervisor's steal of those cores: median 0.10 cores, 90th "
                          "percentile 0.10, most 0.10, over 1 run"),
            std::string::npos)
      << markdown;
  const auto summary = nlohmann::json::parse(testing::read_text(dir.file("run/summary.json")));
  EXPECT_EQ(summary["other_load"]["runs"], 2);
  EXPECT_DOUBLE_EQ(summary["other_load"]["max_busy_cores"].get<double>(), 0.2);
  EXPECT_EQ(summary["other_load"]["stolen"]["runs"], 1);
  EXPECT_DOUBLE_EQ(summary["other_load"]["stolen"]["median_cores"].get<double>(), 0.1);
  EXPECT_NE(markdown.find("The runs' threads that waited for a CPU: median 0.05 threads, 90th "
                          "percentile 0.05, most 0.05, over 1 run"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(summary["cpu_wait"]["runs"], 1);
  EXPECT_DOUBLE_EQ(summary["cpu_wait"]["max_threads"].get<double>(), 0.05);
  EXPECT_NE(markdown.find("Their cgroup CPU quota throttled them in median 0.04 of the quota's "
                          "periods, 90th percentile 0.04, most 0.04, over 1 run"),
            std::string::npos)
      << markdown;
  EXPECT_EQ(summary["quota_throttling"]["runs"], 1);
  EXPECT_DOUBLE_EQ(summary["quota_throttling"]["max_share"].get<double>(), 0.04);
}

// Since 2026-12-06 a record measures other processes' load over its training; the sample an older
// record took before its run is read only where that measure is missing.
TEST(MeasurementHealthTest, OtherLoadIsReadFromTheTrainingWhereTheRecordMeasuredIt) {
  auto record = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  record.environment["machine_at_start"] = {{"busy_cores", 1.5}};
  record.metrics.other_processes_busy_cores = 0.6;
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{"other load: 0.60 cores busy"}));
  record.metrics.other_processes_busy_cores = 0.25;  // flagged above 0.25 only
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  record.metrics.other_processes_busy_cores.reset();
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{"other load at start: 1.50 cores busy"}));
}

// Load on a core the run's threads leave idle takes nothing from it (a one-thread run beside a
// busy loop on 2 cores: 1.001x [0.967, 1.036]): only load beyond those cores is flagged.
TEST(MeasurementHealthTest, OtherLoadIsFlaggedOnlyBeyondTheCoresTheRunLeftIdle) {
  auto record = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  record.environment["torch_threads"] = 1;
  record.environment["cpu_cores_usable"] = 2;
  record.metrics.other_processes_busy_cores = 1.0;
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  record.metrics.other_processes_busy_cores = 1.3;
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{
                "other load: 1.30 cores busy, more than the 1 core the run left idle"}));
  // A loader worker fills the other core.
  record.config["techniques"] = {{"loader_workers", 1}};
  record.metrics.other_processes_busy_cores = 0.6;
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{"other load: 0.60 cores busy"}));
  // 2 DDP ranks of one thread on 8 cores leave 6 idle; an older record's sample reads the same.
  record.config["techniques"] = nlohmann::json::object();
  record.environment["cpu_cores_usable"] = 8;
  record.metrics.distributed.world_size = 2;
  record.metrics.other_processes_busy_cores = 6.2;
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  record.metrics.other_processes_busy_cores.reset();
  record.environment["machine_at_start"] = {{"busy_cores", 7.0}};
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{
                "other load at start: 7.00 cores busy, more than the 6 cores the run left idle"}));
}

// A cgroup CPU quota (docker --cpus, a Kubernetes limit) lets the run use fewer cores than its
// affinity mask names, and the other-load measure counts them all: load on the others takes
// nothing from it (a one-thread ResNet-8 run under a 1-core quota on 2 cores, beside a busy loop
// outside its cgroup: bench/idle_core_load.py), so only load beyond them is flagged.
TEST(MeasurementHealthTest, OtherLoadOnTheCoresBeyondTheRunsCpuQuotaIsNotFlagged) {
  auto record = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  record.environment["torch_threads"] = 1;
  record.environment["cpu_cores"] = 2;
  record.environment["cpu_cores_usable"] = 1;
  record.metrics.other_processes_busy_cores = 1.0;
  // A record before cpu_cores_affinity: the quota's other core is not known to be spare.
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{"other load: 1.00 cores busy"}));
  record.environment["cpu_cores_affinity"] = 2;
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  record.metrics.other_processes_busy_cores = 1.3;
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{"other load: 1.30 cores busy, more than the 1 core the run "
                                      "left idle (1 beyond its CPU quota)"}));
  // 4 threads under a 4-core quota on a 64-core host: the other 60 are the host's.
  record.environment["torch_threads"] = 4;
  record.environment["cpu_cores"] = 64;
  record.environment["cpu_cores_affinity"] = 64;
  record.environment["cpu_cores_usable"] = 4;
  record.metrics.other_processes_busy_cores = 41.5;
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  record.metrics.other_processes_busy_cores = 60.5;
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{"other load: 60.50 cores busy, more than the 60 cores the "
                                      "run left idle (60 beyond its CPU quota)"}));
  // taskset to 4 of the 64 CPUs: the measure counts only those 4, and so does the flag.
  record.environment["cpu_cores_affinity"] = 4;
  record.metrics.other_processes_busy_cores = 0.6;
  EXPECT_EQ(report::run_health_flag_texts(record),
            (std::vector<std::string>{"other load: 0.60 cores busy"}));
}

TEST(MeasurementHealthTest, IdleCoresAreTheUsableOnesNoThreadOrWorkerOfTheRunFills) {
  using measure::idle_cores_left;
  EXPECT_EQ(idle_cores_left(1, 1, 0, 2), 1);
  EXPECT_EQ(idle_cores_left(2, 1, 0, 2), 0);
  EXPECT_EQ(idle_cores_left(1, 1, 1, 2), 0);
  EXPECT_EQ(idle_cores_left(2, 2, 0, 16), 12);
  EXPECT_EQ(idle_cores_left(4, 0, 2, 16), 10);  // a record without DDP: 1 rank
  EXPECT_EQ(idle_cores_left(8, 1, 0, 2), 0);    // oversubscribed: none idle, never negative
  EXPECT_EQ(idle_cores_left(0, 1, 0, 2), 0);    // the threads are not known
  EXPECT_EQ(idle_cores_left(1, 1, 0, 0), 0);    // nor the cores
}

// A virtual machine's host that gives the run's virtual CPUs to other guests is named as that,
// not as other processes (which `top` in the guest would not show); and whatever held the run's
// threads back from a CPU (a cgroup quota: no other load, no steal), the wait itself is flagged.
TEST(MeasurementHealthTest, StealAndThreadsWaitingForACpuAreEachFlagged) {
  auto record = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  record.metrics.other_processes_busy_cores = 0.0;
  record.metrics.stolen_cores = 0.75;
  record.metrics.cpu_wait_threads = 0.86;
  EXPECT_EQ(
      report::run_health_flag_texts(record),
      (std::vector<std::string>{"hypervisor steal: 0.75 cores", "waited for a CPU: 0.86 threads"}));
  const auto flags = report::run_health_flags(record);
  ASSERT_EQ(flags.size(), 2u);
  EXPECT_EQ(flags[0].kind, "hypervisor steal");
  EXPECT_EQ(flags[1].kind, "waited for a CPU");
  const auto counted =
      report::flagged_runs({record, record, testing::synthetic_record("w", "x", 0, 100, 1000)});
  EXPECT_EQ(counted.flagged, 2u);
  EXPECT_EQ(counted.records, 3u);
  EXPECT_EQ(report::flagged_runs_text(counted),
            "2 of 3 runs flagged (hypervisor steal: 2, waited for a CPU: 2)");
  EXPECT_EQ(report::flagged_runs_text(report::flagged_runs({})), "none of 0 runs flagged");
  record.metrics.stolen_cores = 0.25;  // each flagged above 0.25 only
  record.metrics.cpu_wait_threads = 0.25;
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
}

// A cgroup quota that ran out in more than 1 period in 10 stopped the run's threads mid-step for
// up to the rest of each such period (a one-thread run under a 1-core quota: 0.02; two threads
// under it: 1.0, beside "waited for a CPU: 0.98 threads").
TEST(MeasurementHealthTest, ACpuQuotaThatThrottledTheRunIsFlagged) {
  auto record = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  record.metrics.quota_throttled_share = 0.1;  // flagged above 0.1 only
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  record.metrics.quota_throttled_share = 0.96;
  const auto flags = report::run_health_flags(record);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, "quota throttling");
  EXPECT_EQ(flags[0].text, "CPU quota throttled it in 96% of its periods");
  record.metrics.quota_throttled_share.reset();  // no quota
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
}

// A run's matmul peaks at its start and at its end more than 1.25x apart: the machine's speed
// moved within the run (120 quiet runs here: 1.08x at most; a probe that lost one of 2 cores read
// about half, one whose second thread a nice -20 loop starved about a sixth).
TEST(MeasurementHealthTest, AMatmulPeakThatMovedWithinTheRunIsFlagged) {
  auto record = testing::synthetic_record("w", "baseline", 0, 100, 1000);
  record.metrics.matmul_peak_flops_at_start = {{"fp32", 1.1e11}};
  record.metrics.matmul_peak_flops_at_end = {{"fp32", 2.2e11}};
  auto flags = report::run_health_flags(record);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].kind, "peak moved");
  EXPECT_EQ(flags[0].text,
            "peak moved: fp32 matmul 110 GFLOP/s at its start, 220 GFLOP/s at its end");
  // Slower at the end (a clock that fell under load) alike.
  record.metrics.matmul_peak_flops_at_start = {{"bf16", 8e14}};
  record.metrics.matmul_peak_flops_at_end = {{"bf16", 6e14}};
  flags = report::run_health_flags(record);
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].text,
            "peak moved: bf16 matmul 800 TFLOP/s at its start, 600 TFLOP/s at its end");
  record.metrics.matmul_peak_flops_at_end = {{"bf16", 6.4e14}};  // flagged above 1.25x only
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  // One probe: a run that did not end ok, or a record from before 2026-12-07.
  record.metrics.matmul_peak_flops_at_end.clear();
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
  record.metrics.matmul_peak_flops_at_start.clear();
  EXPECT_TRUE(report::run_health_flag_texts(record).empty());
}

TEST(MeasurementHealthTest, OversubscriptionCountsTheThreadsOfEveryRank) {
  using measure::thread_oversubscription;
  EXPECT_EQ(thread_oversubscription(2, 1, 2), std::nullopt);
  EXPECT_EQ(thread_oversubscription(2, 0, 2), std::nullopt);  // a record without DDP: 1 rank
  EXPECT_EQ(thread_oversubscription(3, 1, 2), "3 threads on 2 cores");
  EXPECT_EQ(thread_oversubscription(1, 2, 2), std::nullopt);
  EXPECT_EQ(thread_oversubscription(2, 2, 2), "4 threads (2 ranks x 2) on 2 cores");
  EXPECT_EQ(thread_oversubscription(64, 1, 0), std::nullopt);  // the cores are not known
  EXPECT_EQ(thread_oversubscription(2, 1, 1), "2 threads on 1 core");
}

TEST(MeasurementHealthTest, ACgroupQuotaIsReadAsTheCoresItLetsRunAtOnce) {
  using measure::cgroup_v1_quota_cores;
  using measure::cgroup_v2_quota_cores;
  EXPECT_EQ(cgroup_v2_quota_cores("200000 100000\n"), 2);
  EXPECT_EQ(cgroup_v2_quota_cores("150000 100000"), 2);  // 1.5 cores: 2 threads run at once
  EXPECT_EQ(cgroup_v2_quota_cores("50000 100000"), 1);
  EXPECT_EQ(cgroup_v2_quota_cores("max 100000\n"), std::nullopt);  // no quota
  EXPECT_EQ(cgroup_v2_quota_cores(""), std::nullopt);              // no such file
  EXPECT_EQ(cgroup_v2_quota_cores("100000"), std::nullopt);
  EXPECT_EQ(cgroup_v1_quota_cores("400000\n", "100000\n"), 4);
  EXPECT_EQ(cgroup_v1_quota_cores("-1\n", "100000\n"), std::nullopt);  // no quota
  EXPECT_EQ(cgroup_v1_quota_cores("", ""), std::nullopt);
}

TEST(MeasurementHealthTest, AQuotaOnAParentCgroupBindsItsChildren) {
  using measure::cgroup_tree_quota_cores;
  TempDir v2, v1;
  const auto put = [](const TempDir& mount, const std::string& file, const std::string& text) {
    std::filesystem::create_directories((mount.path() / file).parent_path());
    write_text(mount.file(file), text);
  };
  const auto v2_mount = v2.path().string(), v1_mount = v1.path().string();
  // cgroup v2: the process's own cgroup has none, its slice 3 cores, the slice above it 2.
  put(v2, "user.slice/app.slice/job/cpu.max", "max 100000\n");
  put(v2, "user.slice/app.slice/cpu.max", "300000 100000\n");
  put(v2, "user.slice/cpu.max", "200000 100000\n");
  EXPECT_EQ(cgroup_tree_quota_cores(v2_mount, "/user.slice/app.slice/job", "/none", "/"), 2);
  // A container that sees the host's path has its own cgroup mounted at the top.
  put(v2, "cpu.max", "100000 100000\n");
  EXPECT_EQ(cgroup_tree_quota_cores(v2_mount, "/docker/abc", "/none", "/"), 1);
  // cgroup v1: the quota sits on the parent; the tighter of the two hierarchies wins.
  put(v1, "pod/cpu.cfs_quota_us", "150000\n");
  put(v1, "pod/cpu.cfs_period_us", "100000\n");
  put(v1, "pod/c1/cpu.cfs_quota_us", "-1\n");
  put(v1, "pod/c1/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(cgroup_tree_quota_cores("/none", "/", v1_mount, "/pod/c1"), 2);
  EXPECT_EQ(cgroup_tree_quota_cores(v2_mount, "/docker/abc", v1_mount, "/pod/c1"), 1);
  EXPECT_EQ(cgroup_tree_quota_cores("/none", "/", "/none", "/"), std::nullopt);
}

TEST(MeasurementHealthTest, TheUsableCoresAreThoseOfTheAffinityMask) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "this process may run on one core only";
  const int64_t all = measure::usable_cpu_cores();
  EXPECT_LE(all, CPU_COUNT(&before));
  int first = 0;
  while (!CPU_ISSET(first, &before)) ++first;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // this thread only
  const int64_t pinned = measure::usable_cpu_cores();
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
  EXPECT_EQ(pinned, 1);
  EXPECT_EQ(measure::usable_cpu_cores(), all);
}

TEST(MeasurementHealthTest, ReportAndVerifyWarnWhenTheRecordsComeFromTwoBuilds) {
  TempDir dir;
  for (int rep = 0; rep < 3; ++rep) {
    for (const auto* variant : {"baseline", "amp"}) {
      auto record = testing::synthetic_record("w", variant, rep, 100, 1000);
      record.environment["git_commit"] = rep < 2 ? "a" : "b";  // the last repetition resumed
      append_record(dir.file("run/runs.jsonl"), record);
    }
  }
  const auto claims = testing::empty_claims_file(dir);
  const std::string warning =
      "warning: the records come from more than one machine or build (they differ in "
      "git_commit)";
  for (const auto* command : {" report ", " verify "}) {
    const auto result =
        run_command(kSpeedbench + command + dir.file("run") + " --claims " + claims);
    EXPECT_EQ(result.exit_code, 0) << result.output;
    EXPECT_NE(result.output.find(warning), std::string::npos) << command << result.output;
  }
}

}  // namespace
}  // namespace speedbench
