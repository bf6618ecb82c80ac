// End-to-end tests of `speedbench run --suite S --against OTHER`: a second build makes every
// run too, back to back, into a folder of its own; its failures are recorded, not lost.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "harness/data/datasets.h"
#include "harness/os/process_exit.h"
#include "harness/results/records_file.h"
#include "harness/suite/speedbench_binary.h"
#include "tests/cli_fixtures.h"

namespace speedbench {
namespace {

using testing::expect_bad_input;
using testing::mini_suite;
using testing::only_run_folder;
using testing::read_text;
using testing::run_command;
using testing::run_suite_command;
using testing::speedbench_cli;
using testing::TempDir;
using testing::write_executable;
using testing::write_text;

// logs the run's index and how many runs this binary had recorded by then (not for the check of
// its `run-one --help` before the suite starts).
std::string write_logging_binary(const TempDir& dir) {
  const auto path = dir.file("other-build");
  write_executable(path,
                   "#!/bin/sh\n"
                   "if [ \"$1\" = run-one ] && [ \"$2\" != --help ]; then\n"
                   "  previous=; for arg in \"$@\"; do\n"
                   "    case \"$previous\" in --records) records=$arg;; --run-index) index=$arg;; "
                   "esac; previous=$arg\n"
                   "  done\n"
                   "  this=\"$(dirname \"$(dirname \"$records\")\")/runs.jsonl\"\n"
                   "  echo \"$index $(cat \"$this\" 2>/dev/null | wc -l)\" >> " +
                       dir.file("order.log") +
                       "\n"
                       "fi\n"
                       "exec " +
                       speedbench_cli() + " \"$@\"\n");
  return path;
}

// `run --against`: every planned run made by both binaries back to back, this one first in even
// repetitions and the other first in odd ones, into two folders that compare pairs run by run;
// a time budget and --resume work across both, and --resume refuses another second build.
TEST(CliSecondBuildTest, ASuiteRunAgainstItAlternatesThemRunByRunIntoTwoFolders) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(2));
  const auto other = write_logging_binary(dir);
  const auto run = run_suite_command(dir) + " --against " + other;
  const auto budgeted = run_command(run + " --time-budget 0.001");
  ASSERT_EQ(budgeted.exit_code, 0) << budgeted.output;
  EXPECT_NE(budgeted.output.find("against binary: speedbench "), std::string::npos)
      << budgeted.output;
  EXPECT_NE(budgeted.output.find("the next run, tiny / sgd (rep 0, against), was expected to "
                                 "take"),
            std::string::npos)
      << budgeted.output;
  EXPECT_NE(budgeted.output.find("7 of 8 planned runs not started"), std::string::npos)
      << budgeted.output;

  // The same version line, other bytes (a rebuild of a dirty tree, say): not the build it started.
  const auto script = read_text(other);
  write_text(other, script + "# rebuilt\n");
  const auto rebuilt = run_command(run + " --resume");
  expect_bad_input(rebuilt, "field 'against': the run folder's --against runs were made by " +
                                other + " (speedbench ");
  EXPECT_NE(
      rebuilt.output.find("is " + other + ", the same --version line but other bytes (crc32 "),
      std::string::npos)
      << rebuilt.output;
  EXPECT_NE(rebuilt.output.find("resume with those, or run without --resume"), std::string::npos)
      << rebuilt.output;
  write_text(other, script);

  const auto resumed = run_command(run + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("resuming: 1 runs already recorded"), std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("[5/8] tiny / sgd (rep 1, against)"), std::string::npos)
      << resumed.output;
  EXPECT_NE(resumed.output.find("[6/8] tiny / sgd (rep 1)"), std::string::npos) << resumed.output;
  // Run index, and this binary's records when the other started it: this one went first in
  // repetition 0 (runs 0, 1), the other first in repetition 1 (runs 2, 3).
  EXPECT_EQ(read_text(dir.file("order.log")), "0 1\n1 2\n2 2\n3 3\n");

  const auto folder = only_run_folder(dir.file("results/mini"));
  const auto against = folder / "against";
  EXPECT_EQ(read_text((folder / "plan.json").string()),
            read_text((against / "plan.json").string()));
  const auto these = read_records((folder / "runs.jsonl").string());
  const auto others = read_records((against / "runs.jsonl").string());
  ASSERT_EQ(these.size(), 4u);
  ASSERT_EQ(others.size(), 4u);
  for (const auto* records : {&these, &others}) {
    for (size_t k = 0; k < records->size(); ++k) {
      EXPECT_EQ((*records)[k].run_index, static_cast<int64_t>(k));
      EXPECT_EQ((*records)[k].run_id, folder.filename().string());
      EXPECT_EQ((*records)[k].status, RunStatus::kOk) << (*records)[k].message;
    }
  }
  EXPECT_NE(resumed.output.find("compare: speedbench compare " + folder.string() + "\n"),
            std::string::npos)
      << resumed.output;
  // One folder of a run --against: its against/ before, itself after.
  const auto compared = run_command(speedbench_cli() + " compare " + folder.string());
  ASSERT_EQ(compared.exit_code, 0) << compared.output;
  EXPECT_NE(compared.output.find("before: " + against.string() + " (suite mini"), std::string::npos)
      << compared.output;
  EXPECT_NE(compared.output.find("2 of 2 variants paired run by run"), std::string::npos)
      << compared.output;
  EXPECT_EQ(
      run_command(speedbench_cli() + " compare " + against.string() + " " + folder.string()).output,
      compared.output);

  // Its folder is not resumed without --against (this binary's half alone would look complete).
  const auto alone = run_command(run_suite_command(dir) + " --resume");
  expect_bad_input(alone, "has it but was run with --against: resume it with --against");
}

// The second build fails every run: its runs are recorded as crashed, with its error line and
// whose it was, this build's runs are unaffected, and the suite fails.
TEST(CliSecondBuildTest, OneThatFailsItsRunsIsRecordedAsCrashedAndFailsTheSuite) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  const auto other = dir.file("failing-build");
  write_executable(other, "#!/bin/sh\n{ [ \"$1\" = --version ] || [ \"$2\" = --help ]; } && exec " +
                              speedbench_cli() +
                              " \"$@\"\n"
                              "echo 'speedbench: error: this build cannot run it' >&2; exit 2\n");
  const auto result = run_command(run_suite_command(dir) + " --against " + other);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("2 ok, 0 diverged/oom, 0 not applicable, 2 crashed"),
            std::string::npos)
      << result.output;
  const auto folder = only_run_folder(dir.file("results/mini"));
  for (const auto& r : read_records((folder / "runs.jsonl").string()))
    EXPECT_EQ(r.status, RunStatus::kOk) << r.message;
  const auto failed = read_records((folder / "against/runs.jsonl").string());
  ASSERT_EQ(failed.size(), 2u);
  for (const auto& r : failed) {
    EXPECT_EQ(r.status, RunStatus::kCrashed);
    // The runner wrote it: the machine's facts, the other build (which wrote no record of its
    // own) by its --version line only.
    EXPECT_TRUE(r.environment.contains("host")) << r.environment.dump();
    EXPECT_FALSE(r.environment.contains("git_commit")) << r.environment.dump();
    EXPECT_FALSE(r.environment.contains("libtorch_version")) << r.environment.dump();
    EXPECT_EQ(r.environment.value("build_version_line", "").rfind("speedbench ", 0), 0u)
        << r.environment.dump();
    EXPECT_NE(r.message.find("--against "), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("failing-build: run process exited with code 2: this build cannot "
                             "run it"),
              std::string::npos)
        << r.message;
  }
  // Such records measured nothing: compare names no machine or build keys they lack.
  const auto compared = run_command(speedbench_cli() + " compare " + (folder / "against").string() +
                                    " " + folder.string());
  EXPECT_EQ(compared.exit_code, 0) << compared.output;
  EXPECT_NE(compared.output.find("not_compared: before: crashed (--against "), std::string::npos)
      << compared.output;
  EXPECT_EQ(compared.output.find("only the after records name"), std::string::npos)
      << compared.output;
}

// The runner asks its runs for the quick exit (process_exit.h), and leaves a "0" the user set
// alone. Seen through a second build that logs the variable as each of its runs starts.
TEST(CliSecondBuildTest, ItsRunsAreAskedForTheQuickExitUnlessTheUserSetZero) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  const auto other = dir.file("logging-build");
  write_executable(other,
                   std::string("#!/bin/sh\n[ \"$1 $2\" = \"run-one --config\" ] && echo \"${") +
                       kQuickExitVariable + ":-unset}\" >> " + dir.file("asked") + "\nexec " +
                       speedbench_cli() + " \"$@\"\n");
  const auto suite = run_suite_command(dir) + " --against " + other;
  for (const std::string set_by_user : {"", "0"}) {
    std::remove(dir.file("asked").c_str());
    const auto prefix = set_by_user.empty()
                            ? std::string("unset ") + kQuickExitVariable + "; "
                            : std::string(kQuickExitVariable) + "=" + set_by_user + " ";
    const auto result = run_command(prefix + suite);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_EQ(read_text(dir.file("asked")), set_by_user.empty() ? "1\n1\n" : "0\n0\n")
        << "set by the user: \"" << set_by_user << '"';
  }
}

// The options a --against build is checked for up front are the ones the runner then passes:
// the runner's every `run-one` option is in kRunOneOptionsTheRunnerPasses, and with --data-root
// it passes them all.
TEST(CliSecondBuildTest, ItIsCheckedForEveryRunOneOptionTheRunnerPasses) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  const auto other = dir.file("logging-build");
  write_executable(other, "#!/bin/sh\necho \"$@\" >> " + dir.file("calls") + "\nexec " +
                              speedbench_cli() + " \"$@\"\n");
  const auto result = run_command(run_suite_command(dir) + " --against " + other + " --data-root " +
                                  data::dataset_folder(DataConfig{}));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::set<std::string> passed;
  int runs = 0;
  std::istringstream calls(read_text(dir.file("calls")));
  for (std::string call; std::getline(calls, call);) {
    if (call.rfind("run-one --config ", 0) != 0) continue;  // --version, run-one --help
    runs += 1;
    std::istringstream words(call);
    for (std::string word; words >> word;)
      if (word.rfind("--", 0) == 0) passed.insert(word);
  }
  EXPECT_EQ(runs, 2);
  const std::set<std::string> checked(kRunOneOptionsTheRunnerPasses.begin(),
                                      kRunOneOptionsTheRunnerPasses.end());
  EXPECT_EQ(passed, checked);
}

// The second build dies in one run after writing another: the record the runner writes for it
// takes that build's facts from its own record (the same binary here, so this checks the wiring;
// EnvironmentIdentityTest checks what is taken).
TEST(CliSecondBuildTest, ItsDeadRunIsRecordedWithTheBuildItsOwnRecordNames) {
  TempDir dir;
  write_text(dir.file("suite.json"), mini_suite(1));
  const auto other = dir.file("dying-build");
  write_executable(other, "#!/bin/sh\nSPEEDBENCH_INJECT_FAULT=1:segfault exec " + speedbench_cli() +
                              " \"$@\"\n");
  const auto result = run_command(run_suite_command(dir) + " --against " + other);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  const auto records =
      read_records((only_run_folder(dir.file("results/mini")) / "against/runs.jsonl").string());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].status, RunStatus::kOk);
  EXPECT_FALSE(records[0].environment.contains("build_version_line"));
  EXPECT_EQ(records[1].status, RunStatus::kCrashed);
  EXPECT_NE(records[1].message.find("signal"), std::string::npos) << records[1].message;
  for (const auto* key : {"git_commit", "build_type", "libtorch_version", "compiler"}) {
    EXPECT_EQ(records[1].environment.value(key, nlohmann::json()),
              records[0].environment.value(key, nlohmann::json()))
        << key;
  }
  EXPECT_EQ(records[1].environment.value("build_version_line", "").rfind("speedbench ", 0), 0u);
}

}  // namespace
}  // namespace speedbench
