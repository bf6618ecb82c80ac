#include "harness/suite/suite_runner.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/results/records_file.h"
#include "harness/suite/run_one.h"

extern char** environ;

namespace speedbench {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Runs `argv` and waits; returns a description of an abnormal end, "" for exit code 0.
std::string run_child(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, args[0], nullptr, nullptr, args.data(), environ) != 0) {
    return "could not start " + argv[0];
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
  }
  if (WIFSIGNALED(status)) {
    return "run process killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  }
  if (WEXITSTATUS(status) != 0) {
    return "run process exited with code " + std::to_string(WEXITSTATUS(status));
  }
  return "";
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

}  // namespace

SuiteRunSummary run_suite(const Suite& suite, const SuiteRunOptions& options) {
  const auto run_id = make_run_id();
  const fs::path folder = fs::path(options.results_root) / suite.name / run_id;
  fs::create_directories(folder);
  SuiteRunSummary summary;
  summary.records_path = (folder / "runs.jsonl").string();
  std::fprintf(stderr, "suite %s: %zu runs -> %s\n", suite.name.c_str(), suite.plan.size(),
               summary.records_path.c_str());

  const auto suite_start = Clock::now();
  for (const auto& run : suite.plan) {
    const auto elapsed = std::chrono::duration<double>(Clock::now() - suite_start).count();
    const auto eta = run.index > 0 ? elapsed / run.index * (suite.plan.size() - run.index) : 0.0;
    std::fprintf(stderr, "[%lld/%zu] %s (rep %lld)%s\n", static_cast<long long>(run.index + 1),
                 suite.plan.size(), run.variant.c_str(), static_cast<long long>(run.repetition),
                 run.index > 0 ? ("  ETA " + format_duration(eta)).c_str() : "");

    const auto config_path = folder / (".run-" + std::to_string(run.index) + ".config.json");
    std::ofstream(config_path) << run.config_json.dump(2);
    std::vector<std::string> argv = {options.executable, "run-one",
                                     "--config", config_path.string(),
                                     "--records", summary.records_path,
                                     "--run-id", run_id,
                                     "--suite", suite.name,
                                     "--variant", run.variant,
                                     "--run-index", std::to_string(run.index),
                                     "--repetition", std::to_string(run.repetition)};
    if (!options.data_root.empty()) {
      argv.insert(argv.end(), {"--data-root", options.data_root});
    }
    RunIdentity identity{run_id, suite.name, run.variant, run.index, run.repetition};
    const auto failure = run_child(argv);
    fs::remove(config_path);

    Record last;
    if (!failure.empty()) {
      // The child wrote nothing (it died): record the crash so the report shows it.
      last = crashed_record(run.config, identity, failure);
      append_record(summary.records_path, last);
    } else {
      last = read_records(summary.records_path).back();
    }
    summary.runs += 1;
    switch (last.status) {
      case RunStatus::kOk: summary.ok += 1; break;
      case RunStatus::kNotApplicable: summary.not_applicable += 1; break;
      case RunStatus::kCrashed: summary.crashed += 1; break;
      default: summary.diverged_or_oom += 1; break;
    }
  }
  std::fprintf(stderr, "suite %s: %d ok, %d diverged/oom, %d not applicable, %d crashed in %s\n",
               suite.name.c_str(), summary.ok, summary.diverged_or_oom, summary.not_applicable,
               summary.crashed,
               format_duration(std::chrono::duration<double>(Clock::now() - suite_start).count()).c_str());
  return summary;
}

}  // namespace speedbench
