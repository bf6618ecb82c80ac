#include "harness/suite/suite_runner.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "harness/config/config_error.h"
#include "harness/data/datasets.h"
#include "harness/os/child_process.h"
#include "harness/os/process_exit.h"
#include "harness/os/scoped_signal_handlers.h"
#include "harness/results/environment_identity.h"
#include "harness/results/records_file.h"
#include "harness/suite/run_folder.h"
#include "harness/suite/run_one.h"
#include "harness/suite/run_time_budget.h"
#include "harness/train/training_steps.h"

namespace speedbench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The child in flight and whether the user asked the suite to stop (set by the signal handler).
volatile sig_atomic_t g_child_pid = 0;
volatile sig_atomic_t g_stop_signal = 0;

void forward_and_stop(int signal) {
  g_stop_signal = signal;
  if (g_child_pid > 0) ::kill(static_cast<pid_t>(g_child_pid), signal);
}

// Passes a child's stderr through to ours while remembering its last error line (the text after
// kErrorLinePrefix), so that a run failing on bad input says why in runs.jsonl too.
class ErrorLineTee {
 public:
  void consume(const char* bytes, size_t count) {
    std::fwrite(bytes, 1, count, stderr);
    for (size_t i = 0; i < count; ++i) {
      if (bytes[i] != '\n') {
        if (line_.size() < kMaxLine) line_ += bytes[i];
        continue;
      }
      const std::string_view prefix = kErrorLinePrefix;
      if (line_.compare(0, prefix.size(), prefix) == 0) error_ = line_.substr(prefix.size());
      line_.clear();
    }
  }
  const std::string& error() const { return error_; }

 private:
  static constexpr size_t kMaxLine = 2000;
  std::string line_;
  std::string error_;
};

// Runs `argv` and waits; returns a description of an abnormal end, "" for exit code 0. The
// child's stderr passes through a pipe so that its error line can be added to that description.
std::string run_child(const std::vector<std::string>& argv) {
  const auto child = spawn_with_pipe(argv, STDERR_FILENO);
  if (!child) return "could not start " + argv[0];
  g_child_pid = child->pid;
  if (g_stop_signal != 0) ::kill(child->pid, g_stop_signal);  // the signal came while spawning
  ErrorLineTee tee;
  read_until_closed(child->read_fd,
                    [&tee](const char* bytes, size_t count) { tee.consume(bytes, count); });
  const auto ended = wait_for_child(child->pid);
  g_child_pid = 0;
  if (ended.empty()) return "";
  return "run process " + ended + (tee.error().empty() ? "" : ": " + tee.error());
}

std::string format_duration(double seconds) {
  char text[32];
  if (seconds >= 3600) {
    std::snprintf(text, sizeof text, "%dh%02dm", static_cast<int>(seconds / 3600),
                  static_cast<int>(seconds / 60) % 60);
  } else {
    std::snprintf(text, sizeof text, "%dm%02ds", static_cast<int>(seconds / 60),
                  static_cast<int>(seconds) % 60);
  }
  return text;
}

// A dataset that is missing or corrupt, a batch larger than its training set or a warmup as long
// as the run would fail every run alike, each in its own child: load each dataset the plan reads
// once, here, and check each run's batch and steps against it, so that the error comes once (exit
// 2) before any run and no results folder is left behind.
void check_runs_fit_their_data(const Suite& suite, const std::string& data_root) {
  std::map<std::string, int64_t> training_examples;  // by the data config's JSON
  for (const auto& run : suite.plan) {
    auto data = run.config.data;
    if (!data_root.empty()) data.root = data_root;
    const auto key = run.config_json.value("data", nlohmann::json::object()).dump() + data.root;
    auto known = training_examples.find(key);
    if (known == training_examples.end()) {
      known = training_examples.emplace(key, data::count_training_examples(data, run.config.seed))
                  .first;
    }
    try {
      total_training_steps(run.config,
                           steps_per_epoch(known->second, run.config.batch_size,
                                           static_cast<int>(run.config.techniques.ddp_world_size)));
    } catch (const ConfigError& error) {
      throw ConfigError(suite.file,
                        run.variant + " on workload " + run.workload + ": " + error.field(),
                        error.message());
    }
  }
}

// One binary of the suite run and where its records go: this binary in the run folder, and with
// --against the second binary in the run folder's against/.
struct Side {
  const SpeedbenchBinary* binary;
  fs::path folder;
  std::string records_path;
  std::set<int64_t> recorded;  // run indexes already in its records (--resume)
  bool against = false;
};

// One run of one side, at its place among all of them (1-based: the progress line's count).
struct ScheduledRun {
  const PlannedRun* run;
  const Side* side;
  int64_t position;
};

// Every planned run on every side, in the order they run: the plan's, and for each planned run
// with two sides this binary first in even repetitions and the second binary first in odd ones,
// so that neither always runs in the other's wake (a warm page cache, a cooler CPU) and a drift
// cancels across repetitions.
std::vector<ScheduledRun> schedule(const Suite& suite, const std::vector<Side>& sides) {
  std::vector<ScheduledRun> runs;
  for (const auto& run : suite.plan) {
    std::vector<const Side*> order;
    for (const auto& side : sides) order.push_back(&side);
    if (run.repetition % 2 == 1) std::reverse(order.begin(), order.end());
    for (const Side* side : order)
      runs.push_back({&run, side, static_cast<int64_t>(runs.size()) + 1});
  }
  return runs;
}

// "rep 1", or "rep 1, against" for the second binary's run.
std::string run_label(const PlannedRun& run, const Side& side) {
  return "rep " + std::to_string(run.repetition) + (side.against ? ", against" : "");
}

// Where the suite stands, on one line before each run: its position among the `total` runs
// (the plan's, times two with --against).
void print_progress(const PlannedRun& run, const std::string& label, int64_t position,
                    int64_t total, int64_t started, int64_t to_run, Clock::time_point suite_start,
                    double budget_s) {
  std::string eta;
  if (started > 0) {
    const auto left = suite_time_left(budget_s, seconds_since(suite_start), started, to_run);
    eta =
        "  ETA " + format_duration(left.seconds) + (left.until_budget_end ? " (time budget)" : "");
  }
  std::fprintf(stderr, "[%lld/%lld] %s / %s (%s)%s\n", static_cast<long long>(position),
               static_cast<long long>(total), run.workload.c_str(), run.variant.c_str(),
               label.c_str(), eta.c_str());
}

// Why the suite stops before `next`, and how to go on.
void print_budget_stop(const Suite& suite, const PlannedRun& next, const std::string& label,
                       double expected_s, int64_t not_started, int64_t total, double budget_s) {
  std::fprintf(stderr,
               "suite %s: stopped at its time budget of %g s: the next run, %s / %s (%s), "
               "was expected to take %.1f s more; %lld of %lld planned runs not started. Continue "
               "with the same command and --resume\n",
               suite.name.c_str(), budget_s, next.workload.c_str(), next.variant.c_str(),
               label.c_str(), expected_s, static_cast<long long>(not_started),
               static_cast<long long>(total));
}

// The environment block of the newest record that the side's binary wrote itself (not one the
// runner wrote for it); {} when there is none.
nlohmann::json own_newest_environment(const Side& side) {
  if (!fs::exists(side.records_path)) return nlohmann::json::object();
  const auto records = read_records(side.records_path);
  for (auto record = records.rbegin(); record != records.rend(); ++record) {
    if (!written_for_another_build(record->environment)) return record->environment;
  }
  return nlohmann::json::object();
}

// Runs one planned run in its own process, with the side's binary, and returns its record: the
// one the child appended (a failed DDP launch may still have written rank 0's), or, when it died
// before writing, a `crashed` record appended here so that the report shows it. Nothing when the
// run was interrupted: it is not a result.
std::optional<Record> run_in_child(const PlannedRun& run, const Suite& suite,
                                   const std::string& run_id, const Side& side,
                                   const SuiteRunOptions& options) {
  const auto config_path = side.folder / (".run-" + std::to_string(run.index) + ".config.json");
  // Whole or not at all: on a full disk the suite stops here, naming the file, rather than the
  // child reading half a config and each run being recorded as a crash.
  write_file_whole(config_path, run.config_json.dump(2));
  // Each option here is in kRunOneOptionsTheRunnerPasses, which a --against build is checked for.
  std::vector<std::string> argv = {side.binary->path, "run-one",
                                   "--config",        config_path.string(),
                                   "--records",       side.records_path,
                                   "--run-id",        run_id,
                                   "--suite",         suite.name,
                                   "--variant",       run.variant,
                                   "--run-index",     std::to_string(run.index),
                                   "--repetition",    std::to_string(run.repetition),
                                   "--brief"};
  if (!options.data_root.empty()) argv.insert(argv.end(), {"--data-root", options.data_root});
  const auto failure = run_child(argv);
  // Kept when the run's error names it (bad input that only the run found): the record says so.
  if (failure.find(config_path.string()) == std::string::npos) fs::remove(config_path);
  if (g_stop_signal != 0) return std::nullopt;

  const auto& records_path = side.records_path;
  if (fs::exists(records_path) && fs::file_size(records_path) > 0) {
    auto newest = read_last_record(records_path);
    if (newest.run_id == run_id && newest.run_index == run.index) return newest;
  }
  const RunIdentity identity{run_id, suite.name, run.variant, run.index, run.repetition};
  auto crashed =
      crashed_record(run.config, identity, failure.empty() ? "the run wrote no record" : failure);
  if (side.against) {
    // Written here, by this build, for the other one: say whose run it was, and give that
    // build's keys as its own newest record states them (they would be this build's) and its
    // --version line.
    crashed.message = "--against " + side.binary->path + ": " + crashed.message;
    crashed.environment = with_build_of(crashed.environment, own_newest_environment(side));
    crashed.environment[kForAnotherBuildKey] = side.binary->version;
  }
  append_record(records_path, crashed);
  return crashed;
}

void count_outcome(RunStatus status, SuiteRunSummary& summary) {
  summary.runs += 1;
  switch (status) {
    case RunStatus::kOk:
      summary.ok += 1;
      break;
    case RunStatus::kNotApplicable:
      summary.not_applicable += 1;
      break;
    case RunStatus::kCrashed:
      summary.crashed += 1;
      break;
    default:
      summary.diverged_or_oom += 1;
      break;
  }
}

}  // namespace

SuiteRunSummary run_suite(const Suite& suite, const SuiteRunOptions& options) {
  check_runs_fit_their_data(suite, options.data_root);
  const auto plan = suite_plan_to_json(suite);
  const auto folder = choose_run_folder(suite.name, plan, options.results_root, options.resume,
                                        options.against.has_value());
  const auto run_id = folder.filename().string();
  if (options.resume) {  // choose_run_folder found a folder with this plan
    check_same_builds(folder, options.binary, options.against);
  } else {  // before plan.json: a folder with a plan names its builds
    fs::create_directories(folder);
    note_builds(folder, options.binary, options.against);
  }
  std::vector<Side> sides(options.against ? 2 : 1);
  sides.front().binary = &options.binary;
  sides.front().folder = folder;
  if (options.against) {
    sides.back().binary = &*options.against;
    sides.back().folder = folder / kAgainstFolder;
    sides.back().against = true;
  }
  for (auto& side : sides) {
    side.records_path = (side.folder / "runs.jsonl").string();
    side.recorded = prepare_run_folder(side.folder, plan, side.records_path);
  }
  SuiteRunSummary summary;
  summary.records_path = sides.front().records_path;
  if (sides.size() > 1) summary.against_records_path = sides.back().records_path;
  const auto total = static_cast<int64_t>(suite.plan.size() * sides.size());
  int64_t recorded = 0;
  for (const auto& side : sides) recorded += static_cast<int64_t>(side.recorded.size());
  ::setenv(kParentPidVariable, std::to_string(::getpid()).c_str(), 1);
  ::setenv(kQuickExitVariable, "1", /*overwrite=*/0);  // process_exit.h
  std::fprintf(
      stderr, "suite %s: %lld runs -> %s%s\n", suite.name.c_str(), static_cast<long long>(total),
      summary.records_path.c_str(),
      sides.size() > 1
          ? (" and, with " + options.against->path + ", " + summary.against_records_path).c_str()
          : "");
  if (recorded > 0) {
    std::fprintf(stderr, "resuming: %lld runs already recorded\n",
                 static_cast<long long>(recorded));
  }

  // Until the suite ends, however it ends (a record that cannot be read throws out of here).
  g_stop_signal = 0;
  const ScopedSignalHandlers stop_signals({SIGINT, SIGTERM}, forward_and_stop);
  const ScopedSignalHandlers child_exits_kept({SIGCHLD}, SIG_DFL);
  const auto suite_start = Clock::now();
  const int64_t to_run = total - recorded;
  int64_t started = 0;
  RunDurationEstimate durations;
  for (const auto& [planned, side, position] : schedule(suite, sides)) {
    const PlannedRun& run = *planned;
    if (side->recorded.count(run.index) > 0) {
      summary.skipped += 1;
      continue;
    }
    if (g_stop_signal != 0) break;
    // The second binary's runs are timed apart: it may be the slower build.
    const auto variant_key = run.variant + (side->against ? " (against)" : "");
    const double expected_s = durations.expected_s(run.workload, variant_key);
    const auto label = run_label(run, *side);
    if (!fits_in_budget(options.time_budget_s, seconds_since(suite_start), expected_s,
                        /*first_run=*/started == 0)) {
      print_budget_stop(suite, run, label, expected_s, /*not_started=*/to_run - started, total,
                        options.time_budget_s);
      break;
    }
    print_progress(run, label, position, total, started, to_run, suite_start,
                   options.time_budget_s);
    started += 1;
    const auto run_start = Clock::now();
    const auto record = run_in_child(run, suite, run_id, *side, options);
    if (!record) break;  // interrupted
    durations.add(run.workload, variant_key, seconds_since(run_start));
    count_outcome(record->status, summary);
  }
  const auto took = format_duration(seconds_since(suite_start));
  if (g_stop_signal != 0) {
    summary.interrupted = true;
    std::fprintf(stderr,
                 "suite %s: interrupted (%s) after %d runs in %s; the run in flight was "
                 "dropped. Continue with the same command and --resume\n",
                 suite.name.c_str(), strsignal(g_stop_signal), summary.runs, took.c_str());
    return summary;
  }
  std::fprintf(
      stderr, "suite %s: %d ok, %d diverged/oom, %d not applicable, %d crashed in %s%s%s\n",
      suite.name.c_str(), summary.ok, summary.diverged_or_oom, summary.not_applicable,
      summary.crashed, took.c_str(), sides.size() > 1 ? " (both binaries)" : "",
      summary.skipped > 0 ? (" (" + std::to_string(summary.skipped) + " recorded before)").c_str()
                          : "");
  return summary;
}

void die_with_parent_if_asked() {
  const char* parent = std::getenv(kParentPidVariable);
  if (parent == nullptr) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before the request: then we are already orphaned.
  if (std::to_string(::getppid()) != parent) std::_Exit(137);
}

}  // namespace speedbench
