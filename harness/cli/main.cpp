// speedbench: the command line.
//   speedbench run-one --config FILE      train one config, append its record, print a summary
//   speedbench run --suite FILE           run a suite's plan, each run in its own process
//   speedbench run --suite FILE --plan    what it would run and change; runs nothing
//   speedbench run --config FILE --nproc N   one config as N DDP worker processes
//   speedbench report DIR                 comparisons with intervals: report.md, summary.json
//   speedbench verify DIR                 claims -> verdicts; exit 1 if a gating claim fails
//   speedbench compare BEFORE AFTER       two run folders: what changed; --gate: exit 1 if slower
//   speedbench compare RUN_FOLDER         a run --against folder: its against/ before, itself after
//   speedbench reproduce RUNS.jsonl       rerun a recorded run (or a run folder's last); exit 1 if
//                                         an exact metric differs
//   speedbench list                       workloads and techniques
//   speedbench lr-find --config FILE      LR range test, suggests a peak LR
//   speedbench --version                  version, git commit, build type, LibTorch
// Bad input, command-line mistakes included, exits with code 2 and one line naming the file,
// field and what was expected.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "harness/cli/commands.h"
#include "harness/config/config_error.h"
#include "harness/os/process_exit.h"
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

// --nproc: 0 is not "unset" when typed (it was taken as such and the run was not distributed).
const CLI::Range kWorldSizeRange(1, 4096);

// --run-index, --repetition: positions, counted from 0. (CLI::NonNegativeNumber would print
// "not in range 0.000000 to" a 309-digit number, and CLI11 saturates what overflows.)
const CLI::Validator kPosition(
    [](std::string& text) {
      const bool ok = !text.empty() && text.size() <= 9 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
      return ok ? std::string() : "expected a whole number from 0 to 999999999, got '" + text + "'";
    },
    "0..999999999");

// One function per command: its options, bound to the arguments it fills.
CLI::App* add_run_one_command(CLI::App& app, speedbench::RunOneArgs& args) {
  auto* command = app.add_subcommand("run-one", "Train one config and append its record");
  command->add_option("--config", args.config_path, "TrainConfig JSON file")->required();
  auto* out_option =
      command->add_option("--out", args.results_root, "Results root folder")->capture_default_str();
  command
      ->add_option("--records", args.records_path,
                   "Append to this runs.jsonl instead of <out>/<suite>/<run-id>/runs.jsonl")
      ->excludes(out_option);  // --out would be ignored
  command->add_option("--run-id", args.identity.run_id, "Run id (default: a new one)");
  command->add_option("--suite", args.identity.suite, "Suite name")->capture_default_str();
  command->add_option("--variant", args.identity.variant, "Variant name")->capture_default_str();
  command->add_option("--run-index", args.identity.run_index, "Position in the suite plan")
      ->check(kPosition);
  command->add_option("--repetition", args.identity.repetition, "Repetition number")
      ->check(kPosition);
  command->add_option("--data-root", args.data_root, "Read the dataset from this folder");
  command->add_flag("--quiet", args.quiet, "No progress lines");
  command->add_flag("--brief", args.brief, "A one-line summary");
  command->add_flag("--deterministic", args.deterministic,
                    "Deterministic algorithms (with the config's seed and threads: "
                    "bitwise-identical losses on CPU)");
  command
      ->add_option("--nproc", args.nproc,
                   "DDP: start this many local worker processes (overrides ddp_world_size)")
      ->check(kWorldSizeRange);
  return command;
}

// `run --suite FILE`, or `run --config FILE [--nproc N]`: one config, as run-one (the
// torchrun-like entry point), which fills `one_config`.
CLI::App* add_run_command(CLI::App& app, speedbench::RunSuiteArgs& args,
                          speedbench::RunOneArgs& one_config) {
  auto* command = app.add_subcommand("run", "Run a suite (each run in a child process)");
  auto* suite_option = command->add_option("--suite", args.suite_path, "Suite JSON file");
  auto* config_option = command->add_option("--config", one_config.config_path,
                                            "Run one TrainConfig instead of a suite");
  // Each option below belongs to one of the two forms: given with the other, it would be ignored.
  command
      ->add_option("--nproc", one_config.nproc,
                   "With --config: DDP with this many local worker processes")
      ->check(kWorldSizeRange)
      ->needs(config_option);
  command
      ->add_flag("--deterministic", one_config.deterministic,
                 "With --config: deterministic algorithms")
      ->needs(config_option);
  suite_option->excludes(config_option);
  command->callback([suite_option, config_option] {
    if (suite_option->count() == 0 && config_option->count() == 0) {
      throw CLI::RequiredError("--suite or --config");
    }
  });
  command->add_option("--out", args.results_root, "Results root folder")->capture_default_str();
  command->add_option("--data-root", args.data_root, "Read datasets from this folder");
  command
      ->add_option("--against", args.against_executable,
                   "A second speedbench build: every run is made by both, back to back, its "
                   "records in RUN_FOLDER/against/ (then: compare RUN_FOLDER)")
      ->needs(suite_option);
  command
      ->add_flag("--resume", args.resume,
                 "Continue the newest run of this suite with the same plan: skip recorded runs")
      ->needs(suite_option);
  command->add_option("--only", args.only, "Techniques (or variants) to run, comma-separated")
      ->delimiter(',')
      ->needs(suite_option);
  command->add_option("--exclude", args.exclude, "Techniques (or variants) to leave out")
      ->delimiter(',')
      ->needs(suite_option);
  command
      ->add_option("--base", args.base_patch,
                   "A JSON merge patch on the suite's base config, e.g. "
                   "'{\"techniques\": {\"host_memory_reuse\": true}}' (workloads and toggles "
                   "still override it)")
      ->needs(suite_option);
  command
      ->add_option("--repetitions", args.repetitions,
                   "Runs per variant instead of the suite's (1 to 1000)")
      ->check(CLI::Range(1, 1000))
      ->needs(suite_option);
  command
      ->add_option("--time-budget", args.time_budget_s,
                   "Seconds: start no run that would end past this (the rest: --resume)")
      ->check(CLI::Validator(
          [](std::string& text) {
            char* end = nullptr;
            const double seconds = std::strtod(text.c_str(), &end);
            const bool ok = !text.empty() && *end == '\0' && seconds > 0 && std::isfinite(seconds);
            return ok ? std::string() : "expected a number of seconds above 0, got '" + text + "'";
          },
          "SECONDS"))
      ->needs(suite_option);
  // What would run; the options that act on running or on results would be ignored with it.
  command
      ->add_flag("--plan", args.plan,
                 "Print each workload's variants, what each changes against its baseline and the "
                 "number of runs; run nothing")
      ->needs(suite_option)
      ->excludes("--resume")
      ->excludes("--against")
      ->excludes("--time-budget")
      ->excludes("--out")
      ->excludes("--data-root");
  return command;
}

void add_claims_option(CLI::App& command, speedbench::ReportArgs& args) {
  command.add_option(
      "--claims", args.claims_path,
      std::string("Claims registry (default: ") + speedbench::kDefaultClaimsPath + ")");
}

CLI::App* add_report_command(CLI::App& app, speedbench::ReportArgs& args) {
  auto* command = app.add_subcommand("report", "Report a run folder: report.md, summary.json");
  command->add_option("dir", args.results_dir, "Run folder (results/<suite>/<run-id>)")->required();
  add_claims_option(*command, args);
  command->add_option("--micro", args.micro_path,
                      "Fold in a micro-benchmark JSON (default: DIR/micro.json when present)");
  return command;
}

// Fills `args` as report does, with the claims required.
CLI::App* add_verify_command(CLI::App& app, speedbench::ReportArgs& args) {
  args.claims_required = true;
  auto* command =
      app.add_subcommand("verify", "Verdicts on claims; exit 1 if a gating claim is not confirmed");
  command->add_option("dir", args.results_dir, "Run folder (results/<suite>/<run-id>)")->required();
  add_claims_option(*command, args);
  return command;
}

CLI::App* add_compare_command(CLI::App& app, speedbench::CompareArgs& args) {
  auto* command = app.add_subcommand(
      "compare", "Two run folders side by side (machines, builds): what changed, with intervals");
  command
      ->add_option("before", args.before_dir,
                   "The earlier or reference run folder (alone: a run --against folder, whose "
                   "against/ is then the before)")
      ->required();
  command->add_option("after", args.after_dir, "The run folder to compare with it");
  command->add_option("--metric", args.metric, "A ratio metric of the report")
      ->capture_default_str();
  command
      ->add_option("--tolerance", args.tolerance,
                   "Changes within this fraction (0.05 = 5%) count as unchanged")
      ->check(CLI::Range(0.0, 0.99))
      ->capture_default_str();
  command->add_flag("--gate", args.gate, "Exit 1 when a variant regressed beyond the tolerance");
  command->add_option("--markdown", args.markdown_path, "Write the comparison as markdown here");
  command->add_option("--json", args.json_path, "Write the comparison as JSON here");
  return command;
}

CLI::App* add_reproduce_command(CLI::App& app, speedbench::ReproduceArgs& args) {
  auto* command = app.add_subcommand("reproduce",
                                     "Rerun a recorded run from its record; do the metrics agree?");
  command->add_option("records", args.records_path, "A runs.jsonl, or the run folder that holds it")
      ->required();
  command->add_option("--line", args.line, "Which record, 1-based (default: the last)");
  command->add_option("--out", args.out_path, "Append the rerun's record to this runs.jsonl");
  command->add_option("--data-root", args.data_root, "Read the dataset from this folder");
  return command;
}

CLI::App* add_lr_find_command(CLI::App& app, speedbench::LrFindArgs& args) {
  auto* command = app.add_subcommand("lr-find", "LR range test: suggest a peak LR for a config");
  command->add_option("--config", args.config_path, "TrainConfig JSON file")->required();
  command->add_option("--start-lr", args.start_lr, "First LR of the sweep")->capture_default_str();
  command->add_option("--end-lr", args.end_lr, "Last LR of the sweep")->capture_default_str();
  command->add_option("--steps", args.steps, "Sweep steps")->capture_default_str();
  command->add_option("--out", args.out_path, "Write the curve (JSON) here");
  command->add_option("--data-root", args.data_root, "Read the dataset from this folder");
  return command;
}

// The command's exit code: 0, 1 (a failed command or gate), 2 (bad input).
int run_command_line(int argc, char** argv) {
  using namespace speedbench;
  CLI::App app{"speedbench: measure deep-learning training speedups, side by side"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_line);

  RunOneArgs run_one;
  RunSuiteArgs run_suite_args;
  ReportArgs report_args, verify_args;
  CompareArgs compare_args;
  ReproduceArgs reproduce_args;
  LrFindArgs lr_find;
  auto* run_one_cmd = add_run_one_command(app, run_one);
  auto* run_cmd = add_run_command(app, run_suite_args, run_one);
  auto* report_cmd = add_report_command(app, report_args);
  auto* verify_cmd = add_verify_command(app, verify_args);
  auto* compare_cmd = add_compare_command(app, compare_args);
  auto* list_cmd = app.add_subcommand("list", "List workloads and techniques");
  auto* reproduce_cmd = add_reproduce_command(app, reproduce_args);
  auto* lr_find_cmd = add_lr_find_command(app, lr_find);

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
    if (*run_cmd) return command_run_suite(run_suite_args);
    if (*report_cmd) return command_report(report_args);
    if (*verify_cmd) return command_verify(verify_args);
    if (*compare_cmd) return command_compare(compare_args);
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

}  // namespace

int main(int argc, char** argv) {
  const int exit_code = run_command_line(argc, argv);
  if (speedbench::quick_exit_asked()) speedbench::exit_skipping_static_destructors(exit_code);
  return exit_code;
}
