#include "harness/suite/suite_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string_view>

#include "harness/config/config_error.h"
#include "harness/data/datasets.h"
#include "harness/os/scoped_signal_handlers.h"
#include "harness/results/records_file.h"
#include "harness/suite/run_one.h"
#include "harness/suite/run_time_budget.h"

extern char** environ;

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
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  int pipe_ends[2];
  if (::pipe2(pipe_ends, O_CLOEXEC) != 0) return "could not create a pipe for " + argv[0];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDERR_FILENO);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_ends[1]);
  if (spawned != 0) {
    ::close(pipe_ends[0]);
    return "could not start " + argv[0];
  }
  g_child_pid = pid;
  if (g_stop_signal != 0) ::kill(pid, g_stop_signal);  // the signal came while spawning
  ErrorLineTee tee;
  char buffer[4096];
  for (;;) {  // until every writer (the child and any workers it started) has closed the pipe
    const ssize_t got = ::read(pipe_ends[0], buffer, sizeof buffer);
    if (got > 0) tee.consume(buffer, static_cast<size_t>(got));
    if (got == 0 || (got < 0 && errno != EINTR)) break;
  }
  ::close(pipe_ends[0]);
  int status = 0;
  pid_t waited = -1;
  do {
    waited = ::waitpid(pid, &status, 0);
  } while (waited < 0 && errno == EINTR);
  g_child_pid = 0;
  if (waited < 0)
    return "could not learn how the run process ended: " + std::string(strerror(errno));
  if (WIFSIGNALED(status)) {
    return "run process killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WEXITSTATUS(status) != 0) {
    return "run process exited with code " + std::to_string(WEXITSTATUS(status)) +
           (tee.error().empty() ? "" : ": " + tee.error());
  }
  return "";
}

// The run folder: a new one, or with --resume the newest earlier one whose plan is this plan.
fs::path choose_folder(const Suite& suite, const nlohmann::json& plan,
                       const SuiteRunOptions& options) {
  const auto suite_root = fs::path(options.results_root) / suite.name;
  if (!options.resume) return suite_root / make_run_id();
  std::vector<fs::path> candidates;
  if (fs::is_directory(suite_root)) {
    for (const auto& entry : fs::directory_iterator(suite_root)) {
      if (fs::exists(entry.path() / "plan.json")) candidates.push_back(entry.path());
    }
  }
  std::sort(candidates.rbegin(), candidates.rend());  // run ids sort by time: newest first
  for (const auto& folder : candidates) {
    std::ifstream in(folder / "plan.json");
    const auto earlier = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!earlier.is_discarded() && earlier.value("runs", nlohmann::json()) == plan["runs"])
      return folder;
  }
  throw ConfigError("command line", "--resume",
                    "no earlier run of suite " + suite.name + " under " + suite_root.string() +
                        " has this plan (same suite file, repetitions, --only/--exclude); run "
                        "without --resume to start a new one");
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

// A dataset that is missing or corrupt would fail every run alike, each in its own child: load
// each dataset the plan reads once, here, so that the error comes once (exit 2) before any run
// and no results folder is left behind.
void check_datasets_load(const Suite& suite, const std::string& data_root) {
  std::set<std::string> checked;
  for (const auto& run : suite.plan) {
    auto data = run.config.data;
    if (!data_root.empty()) data.root = data_root;
    if (data.dataset == "synthetic") continue;
    if (checked.insert(data.dataset + "@" + data::dataset_folder(data)).second) {
      data::load_dataset(data, run.config.seed);
    }
  }
}

// Readies the run folder. New: writes plan.json whole or not at all (a kill mid-write must not
// leave a plan that matches nothing). Resumed: returns the run indexes already recorded, after
// dropping an unfinished last line of runs.jsonl.
std::set<int64_t> prepare_run_folder(const fs::path& folder, const nlohmann::json& plan,
                                     const std::string& records_path) {
  fs::create_directories(folder);
  std::set<int64_t> recorded;
  if (!fs::exists(folder / "plan.json")) {
    const auto partial = folder / "plan.json.partial";
    std::ofstream(partial) << plan.dump(1) << "\n";
    fs::rename(partial, folder / "plan.json");
    return recorded;
  }
  if (!fs::exists(records_path)) return recorded;
  if (drop_partial_last_line(records_path)) {
    std::fprintf(stderr, "resuming: dropped an unfinished last line of %s\n", records_path.c_str());
  }
  for (const auto& record : read_records(records_path)) recorded.insert(record.run_index);
  return recorded;
}

// Where the suite stands, on one line before each run.
void print_progress(const Suite& suite, const PlannedRun& run, int64_t started, int64_t to_run,
                    Clock::time_point suite_start, double budget_s) {
  std::string eta;
  if (started > 0) {
    const auto left = suite_time_left(budget_s, seconds_since(suite_start), started, to_run);
    eta =
        "  ETA " + format_duration(left.seconds) + (left.until_budget_end ? " (time budget)" : "");
  }
  std::fprintf(stderr, "[%lld/%zu] %s / %s (rep %lld)%s\n", static_cast<long long>(run.index + 1),
               suite.plan.size(), run.workload.c_str(), run.variant.c_str(),
               static_cast<long long>(run.repetition), eta.c_str());
}

// Why the suite stops before `next`, and how to go on.
void print_budget_stop(const Suite& suite, const PlannedRun& next, double expected_s,
                       int64_t not_started, double budget_s) {
  std::fprintf(stderr,
               "suite %s: stopped at its time budget of %g s: the next run, %s / %s (rep %lld), "
               "was expected to take %.1f s more; %lld of %zu planned runs not started. Continue "
               "with the same command and --resume\n",
               suite.name.c_str(), budget_s, next.workload.c_str(), next.variant.c_str(),
               static_cast<long long>(next.repetition), expected_s,
               static_cast<long long>(not_started), suite.plan.size());
}

// Runs one planned run in its own process and returns its record: the one the child appended
// (a failed DDP launch may still have written rank 0's), or, when it died before writing, a
// `crashed` record appended here so that the report shows it. Nothing when the run was
// interrupted: it is not a result.
std::optional<Record> run_in_child(const PlannedRun& run, const Suite& suite,
                                   const fs::path& folder, const SuiteRunOptions& options,
                                   const std::string& records_path) {
  const auto run_id = folder.filename().string();
  const auto config_path = folder / (".run-" + std::to_string(run.index) + ".config.json");
  std::ofstream(config_path) << run.config_json.dump(2);
  std::vector<std::string> argv = {options.executable, "run-one",
                                   "--config",         config_path.string(),
                                   "--records",        records_path,
                                   "--run-id",         run_id,
                                   "--suite",          suite.name,
                                   "--variant",        run.variant,
                                   "--run-index",      std::to_string(run.index),
                                   "--repetition",     std::to_string(run.repetition),
                                   "--brief"};
  if (!options.data_root.empty()) argv.insert(argv.end(), {"--data-root", options.data_root});
  const auto failure = run_child(argv);
  fs::remove(config_path);
  if (g_stop_signal != 0) return std::nullopt;

  if (fs::exists(records_path) && fs::file_size(records_path) > 0) {
    auto newest = read_last_record(records_path);
    if (newest.run_id == run_id && newest.run_index == run.index) return newest;
  }
  const RunIdentity identity{run_id, suite.name, run.variant, run.index, run.repetition};
  auto crashed =
      crashed_record(run.config, identity, failure.empty() ? "the run wrote no record" : failure);
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
  check_datasets_load(suite, options.data_root);
  const auto plan = suite_plan_to_json(suite);
  const auto folder = choose_folder(suite, plan, options);
  SuiteRunSummary summary;
  summary.records_path = (folder / "runs.jsonl").string();
  const auto recorded = prepare_run_folder(folder, plan, summary.records_path);
  ::setenv(kParentPidVariable, std::to_string(::getpid()).c_str(), 1);
  std::fprintf(stderr, "suite %s: %zu runs -> %s\n", suite.name.c_str(), suite.plan.size(),
               summary.records_path.c_str());
  if (!recorded.empty()) {
    std::fprintf(stderr, "resuming: %zu runs already recorded\n", recorded.size());
  }

  // Until the suite ends, however it ends (a record that cannot be read throws out of here).
  g_stop_signal = 0;
  const ScopedSignalHandlers stop_signals({SIGINT, SIGTERM}, forward_and_stop);
  const ScopedSignalHandlers child_exits_kept({SIGCHLD}, SIG_DFL);
  const auto suite_start = Clock::now();
  const auto to_run = static_cast<int64_t>(suite.plan.size() - recorded.size());
  int64_t started = 0;
  RunDurationEstimate durations;
  for (const auto& run : suite.plan) {
    if (recorded.count(run.index) > 0) {
      summary.skipped += 1;
      continue;
    }
    if (g_stop_signal != 0) break;
    const double expected_s = durations.expected_s(run.workload, run.variant);
    if (!fits_in_budget(options.time_budget_s, seconds_since(suite_start), expected_s,
                        /*first_run=*/started == 0)) {
      print_budget_stop(suite, run, expected_s, /*not_started=*/to_run - started,
                        options.time_budget_s);
      break;
    }
    print_progress(suite, run, started, to_run, suite_start, options.time_budget_s);
    started += 1;
    const auto run_start = Clock::now();
    const auto record = run_in_child(run, suite, folder, options, summary.records_path);
    if (!record) break;  // interrupted
    durations.add(run.workload, run.variant, seconds_since(run_start));
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
  std::fprintf(stderr, "suite %s: %d ok, %d diverged/oom, %d not applicable, %d crashed in %s%s\n",
               suite.name.c_str(), summary.ok, summary.diverged_or_oom, summary.not_applicable,
               summary.crashed, took.c_str(),
               summary.skipped > 0
                   ? (" (" + std::to_string(summary.skipped) + " recorded before)").c_str()
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
