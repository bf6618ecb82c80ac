// speedbench: the command line.
//   speedbench run-one --config FILE      train one config, append its record, print a summary
//   speedbench run --suite FILE           run a suite's plan, each run in its own process
//   speedbench run --config FILE --nproc N   one config as N DDP worker processes
//   speedbench report DIR                 comparisons with intervals: report.md, summary.json
//   speedbench verify DIR                 claims -> verdicts; exit 1 if a gating claim fails
//   speedbench reproduce RUNS.jsonl       rerun a recorded run; exit 1 if an exact metric differs
//   speedbench list                       workloads and techniques
//   speedbench lr-find --config FILE      LR range test, suggests a peak LR
//   speedbench --version                  version, git commit, build type, LibTorch
// Bad input, command-line mistakes included, exits with code 2 and one line naming the file,
// field and what was expected.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/config/config_error.h"
#include "harness/results/environment.h"
#include "harness/suite/suite_runner.h"

namespace {

// A failed command's one line (the suite runner finds it by the prefix) and its exit code.
int fail_with(int exit_code, const std::string& message) {
  std::fprintf(stderr, "%s%s\n", speedbench::kErrorLinePrefix, message.c_str());
  return exit_code;
}

// The words CLI11 could not place, in command-line order (CLI11 2.1 lists a command's last first).
std::vector<std::string> unplaced_words(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> words = app.remaining(true);
  const std::vector<std::string> line(argv + 1, argv + argc);
  auto position = [&line](const std::string& word) {
    return std::find(line.begin(), line.end(), word) - line.begin();
  };
  std::stable_sort(words.begin(), words.end(),
                   [&position](const auto& a, const auto& b) { return position(a) < position(b); });
  return words;
}

// CLI11 checks for a missing command or option before it looks at words it does not know, so
// `speedbench run-on` would read "A subcommand is required" and `run-one --confg c.json`
// "--config is required": the unknown word is the mistake to name.
std::string describe_parse_error(const CLI::App& app, const CLI::ParseError& error, int argc,
                                 char** argv) {
  const std::vector<std::string> unused = unplaced_words(app, argc, argv);
  if (app.get_subcommands().empty()) {
    std::string commands;
    for (const CLI::App* command : app.get_subcommands([](const CLI::App*) { return true; })) {
      commands += (commands.empty() ? "" : ", ") + command->get_name();
    }
    return "expected a command (" + commands + ")" +
           (unused.empty() ? "" : ", got '" + unused.front() + "'");
  }
  if (!unused.empty()) {
    std::string words;
    for (const std::string& word : unused) words += (words.empty() ? "" : " ") + word;
    return (unused.size() == 1 ? "this argument was not expected: "
                               : "these arguments were not expected: ") +
           words;
  }
  std::string message = error.what();
  std::replace(message.begin(), message.end(), '\n', ' ');
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace speedbench;
  CLI::App app{"speedbench: measure deep-learning training speedups, side by side"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line);

  RunOneArgs run_one;
  auto* run_one_cmd = app.add_subcommand("run-one", "Train one config and append its record");
  run_one_cmd->add_option("--config", run_one.config_path, "TrainConfig JSON file")->required();
  run_one_cmd->add_option("--out", run_one.results_root, "Results root folder")
      ->capture_default_str();
  run_one_cmd->add_option("--records", run_one.records_path,
                          "Append to this runs.jsonl instead of <out>/<suite>/<run-id>/runs.jsonl");
  run_one_cmd->add_option("--run-id", run_one.identity.run_id, "Run id (default: a new one)");
  run_one_cmd->add_option("--suite", run_one.identity.suite, "Suite name")->capture_default_str();
  run_one_cmd->add_option("--variant", run_one.identity.variant, "Variant name")
      ->capture_default_str();
  run_one_cmd->add_option("--run-index", run_one.identity.run_index, "Position in the suite plan");
  run_one_cmd->add_option("--repetition", run_one.identity.repetition, "Repetition number");
  run_one_cmd->add_option("--data-root", run_one.data_root, "Read the dataset from this folder");
  run_one_cmd->add_flag("--quiet", run_one.quiet, "No progress lines");
  run_one_cmd->add_flag("--brief", run_one.brief, "A one-line summary");
  run_one_cmd->add_flag("--deterministic", run_one.deterministic,
                        "Deterministic algorithms (with the config's seed and threads: "
                        "bitwise-identical losses on CPU)");
  run_one_cmd->add_option("--nproc", run_one.nproc,
                          "DDP: start this many local worker processes (overrides ddp_world_size)");

  RunSuiteArgs run_suite_args;
  auto* run_cmd = app.add_subcommand("run", "Run a suite (each run in a child process)");
  auto* suite_option = run_cmd->add_option("--suite", run_suite_args.suite_path, "Suite JSON file");
  // `run --config FILE [--nproc N]`: one config, as run-one (the torchrun-like entry point).
  auto* config_option = run_cmd->add_option("--config", run_one.config_path,
                                            "Run one TrainConfig instead of a suite");
  run_cmd->add_option("--nproc", run_one.nproc,
                      "With --config: DDP with this many local worker processes");
  run_cmd->add_flag("--deterministic", run_one.deterministic,
                    "With --config: deterministic algorithms");
  suite_option->excludes(config_option);
  run_cmd->callback([&] {
    if (suite_option->count() == 0 && config_option->count() == 0) {
      throw CLI::RequiredError("--suite or --config");
    }
  });
  run_cmd->add_option("--out", run_suite_args.results_root, "Results root folder")
      ->capture_default_str();
  run_cmd->add_option("--data-root", run_suite_args.data_root, "Read datasets from this folder");
  run_cmd->add_flag("--resume", run_suite_args.resume,
                    "Continue the newest run of this suite with the same plan: skip recorded runs");
  run_cmd
      ->add_option("--only", run_suite_args.only,
                   "Techniques (or variants) to run, comma-separated")
      ->delimiter(',');
  run_cmd->add_option("--exclude", run_suite_args.exclude, "Techniques (or variants) to leave out")
      ->delimiter(',');

  ReportArgs report_args;
  auto* report_cmd = app.add_subcommand("report", "Report a run folder: report.md, summary.json");
  report_cmd->add_option("dir", report_args.results_dir, "Run folder (results/<suite>/<run-id>)")
      ->required();
  report_cmd->add_option("--claims", report_args.claims_path, "Claims registry")
      ->capture_default_str();
  report_cmd->add_option("--micro", report_args.micro_path,
                         "Fold in a micro-benchmark JSON (default: DIR/micro.json when present)");

  ReportArgs verify_args;
  verify_args.claims_required = true;
  auto* verify_cmd =
      app.add_subcommand("verify", "Verdicts on claims; exit 1 if a gating claim is not confirmed");
  verify_cmd->add_option("dir", verify_args.results_dir, "Run folder (results/<suite>/<run-id>)")
      ->required();
  verify_cmd->add_option("--claims", verify_args.claims_path, "Claims registry")
      ->capture_default_str();

  auto* list_cmd = app.add_subcommand("list", "List workloads and techniques");

  ReproduceArgs reproduce_args;
  auto* reproduce_cmd = app.add_subcommand(
      "reproduce", "Rerun a recorded run from its record; do the metrics agree?");
  reproduce_cmd->add_option("records", reproduce_args.records_path, "A runs.jsonl")->required();
  reproduce_cmd->add_option("--line", reproduce_args.line,
                            "Which record, 1-based (default: the last)");
  reproduce_cmd->add_option("--out", reproduce_args.out_path,
                            "Append the rerun's record to this runs.jsonl");
  reproduce_cmd->add_option("--data-root", reproduce_args.data_root,
                            "Read the dataset from this folder");

  LrFindArgs lr_find;
  auto* lr_find_cmd =
      app.add_subcommand("lr-find", "LR range test: suggest a peak LR for a config");
  lr_find_cmd->add_option("--config", lr_find.config_path, "TrainConfig JSON file")->required();
  lr_find_cmd->add_option("--start-lr", lr_find.start_lr, "First LR of the sweep")
      ->capture_default_str();
  lr_find_cmd->add_option("--end-lr", lr_find.end_lr, "Last LR of the sweep")
      ->capture_default_str();
  lr_find_cmd->add_option("--steps", lr_find.steps, "Sweep steps")->capture_default_str();
  lr_find_cmd->add_option("--out", lr_find.out_path, "Write the curve (JSON) here");
  lr_find_cmd->add_option("--data-root", lr_find.data_root, "Read the dataset from this folder");

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    return app.exit(done);
  } catch (const CLI::ParseError& error) {
    // Like any other bad input: one line and exit code 2 (CLI11's own codes are 100 and up).
    return fail_with(2, "command line: " + describe_parse_error(app, error, argc, argv) +
                            " (--help lists the options)");
  }
  try {
    if (*run_one_cmd) return command_run_one(run_one);
    if (*run_cmd && !run_one.config_path.empty()) {
      run_one.results_root = run_suite_args.results_root;
      run_one.data_root = run_suite_args.data_root;
      return command_run_one(run_one);
    }
    if (*run_cmd) {
      run_suite_args.executable = std::filesystem::canonical("/proc/self/exe").string();
      return command_run_suite(run_suite_args);
    }
    if (*report_cmd) return command_report(report_args);
    if (*verify_cmd) return command_verify(verify_args);
    if (*list_cmd) return command_list();
    if (*reproduce_cmd) return command_reproduce(reproduce_args);
    if (*lr_find_cmd) return command_lr_find(lr_find);
  } catch (const ConfigError& error) {
    return fail_with(2, error.what());
  } catch (const std::exception& error) {
    return fail_with(1, error.what());
  }
  return 0;
}
