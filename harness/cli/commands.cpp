#include "harness/cli/commands.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/distributed/launch_environment.h"
#include "harness/distributed/local_launcher.h"
#include "harness/measure/cpu_memory_tracker.h"
#include "harness/measure/statistics.h"
#include "harness/measure/thread_oversubscription.h"
#include "harness/measure/usable_cpu_cores.h"
#include "harness/report/report_text.h"
#include "harness/report/run_health.h"
#include "harness/results/records_file.h"
#include "harness/suite/speedbench_binary.h"
#include "harness/suite/suite.h"
#include "harness/suite/suite_plan_text.h"
#include "harness/suite/suite_runner.h"
#include "harness/techniques/lr_finder.h"
#include "harness/techniques/registry.h"
#include "harness/train/fault_injection.h"

namespace speedbench {

namespace {

// "; flagged: waited for a CPU: 0.91 threads" where the report will flag the run, so that a long
// suite shows a noisy neighbour while it can still be stopped; else "".
std::string health_flags_text(const Record& r) {
  const auto flags = report::run_health_flag_texts(r);
  return flags.empty() ? "" : "; flagged: " + report::joined(flags, "; ");
}

// One line under the suite runner's progress line.
void print_brief_summary(const Record& r) {
  const auto& m = r.metrics;
  if (r.status != RunStatus::kOk) {
    std::printf("  %s: %s\n", to_string(r.status).c_str(), r.message.c_str());
    return;
  }
  std::printf("  ok: %.0f samples/s, test accuracy %.4f, peak %.1f MiB, %.1f s%s\n",
              m.samples_per_s, m.final_test_accuracy, m.peak_allocated_bytes / 1048576.0,
              m.train_wall_s, health_flags_text(r).c_str());
}

void print_summary(const Record& r, const std::string& records_path) {
  const auto& m = r.metrics;
  std::printf("%s / %s: %s%s%s\n", r.workload.c_str(), r.variant.c_str(),
              to_string(r.status).c_str(), r.message.empty() ? "" : " - ", r.message.c_str());
  if (r.status == RunStatus::kOk || r.status == RunStatus::kDiverged) {
    std::printf("  steps %lld (%lld timed, %s)  %.1f samples/s  median step %.1f ms  MFU %.2f%%\n",
                static_cast<long long>(m.steps), static_cast<long long>(m.measured_steps),
                m.step_timing.c_str(), m.samples_per_s, measure::summarize(m.step_ms).median,
                100 * m.mfu);
    std::printf("  wall %.1f s (eval %.1f s)  test accuracy %.4f  test loss %.4f\n", m.train_wall_s,
                m.eval_wall_s, m.final_test_accuracy, m.final_test_loss);
    if (r.unigram_entropy_bits > 0) {
      std::printf("  test bits/char %.3f vs unigram entropy %.3f\n",
                  m.final_test_loss / std::log(2.0), r.unigram_entropy_bits);
    }
    std::printf(
        "  peak tensor MiB: training %.1f, evaluation %.1f  peak RSS %.1f MiB  parameters %lld\n",
        m.peak_allocated_bytes / 1048576.0, m.eval_peak_allocated_bytes / 1048576.0,
        m.peak_rss_bytes / 1048576.0, static_cast<long long>(m.parameter_count));
    if (m.target_accuracy > 0) {
      if (m.time_to_target_s) {
        std::printf("  reached %.3f at %.1f s (step %lld)\n", m.target_accuracy,
                    *m.time_to_target_s, static_cast<long long>(*m.steps_to_target));
      } else {
        std::printf("  target %.3f not reached\n", m.target_accuracy);
      }
    }
  }
  const auto& d = m.distributed;
  if (d.world_size > 1) {
    std::printf(
        "  DDP: %lld ranks (%s), %lld gradient buckets, %lld launched during backward; "
        "all-reduce wait %.2f ms/step\n",
        static_cast<long long>(d.world_size), d.backend.c_str(), static_cast<long long>(d.buckets),
        static_cast<long long>(d.overlapped_buckets),
        m.measured_steps > 0 ? d.comm_wait_ms_total / m.measured_steps : 0.0);
    std::string per_rank;
    for (double ms : d.rank_step_ms_median) per_rank += " " + std::to_string(ms).substr(0, 6);
    if (!per_rank.empty()) std::printf("  median step ms per rank:%s\n", per_rank.c_str());
  }
  if (const auto flags = report::run_health_flag_texts(r); !flags.empty()) {
    std::printf("  measurement health: %s\n", report::joined(flags, "; ").c_str());
  }
  std::printf("  record -> %s\n", records_path.c_str());
}

}  // namespace

// How the launcher hands its workers one run id (their records then land in one folder).
constexpr const char* kRunIdVariable = "SPEEDBENCH_RUN_ID";

// `run-one` with a world size > 1 and no worker environment: start the workers, each this same
// command with RANK etc. set (and one run id, so that rank 0 writes where the user expects).
int launch_run_one(const RunOneArgs& args, int world_size) {
  distributed::LocalLaunch launch;
  launch.nproc = world_size;
  launch.argv = distributed::own_command_line();
  if (args.identity.run_id.empty()) ::setenv(kRunIdVariable, make_run_id().c_str(), 1);
  return distributed::launch_local_workers(launch);
}

int command_run_one(const RunOneArgs& args) {
  die_with_parent_if_asked();
  auto config = load_train_config(args.config_path);
  if (!args.data_root.empty()) config.data.root = args.data_root;
  if (args.deterministic) config.deterministic = true;
  // A worker of a distributed run (started by --nproc, torchrun, srun) or the launcher of one.
  const auto launch = distributed::read_launch_environment(distributed::process_environment());
  if (launch) {
    config.techniques.ddp_world_size = launch->world_size;
  } else {
    if (args.nproc > 0) config.techniques.ddp_world_size = args.nproc;
    if (config.techniques.ddp_world_size > 1) {
      return launch_run_one(args, static_cast<int>(config.techniques.ddp_world_size));
    }
  }
  const bool writes_record = !launch || launch->rank == 0;
  if (writes_record && config.device == "cpu") {
    const auto oversubscribed = measure::thread_oversubscription(
        config.threads, config.techniques.ddp_world_size, measure::usable_cpu_cores());
    if (oversubscribed) {
      std::fprintf(stderr,
                   "warning: %s: the threads will take turns, and the step times measure that "
                   "(set \"threads\" so that ranks x threads <= cores)\n",
                   oversubscribed->c_str());
    }
  }
  arm_fault_injection(args.identity.run_index);
  RunIdentity identity = args.identity;
  if (identity.run_id.empty() && launch && std::getenv(kRunIdVariable))
    identity.run_id = std::getenv(kRunIdVariable);
  if (identity.run_id.empty()) identity.run_id = make_run_id();
  for (const auto& [flag, name] :
       {std::pair<const char*, const std::string&>{"--suite", identity.suite},
        {"--variant", identity.variant},
        {"--run-id", identity.run_id}}) {
    if (!is_valid_name(name)) {
      throw ConfigError("command line", flag,
                        "got \"" + name + "\", expected " + valid_name_rule());
    }
  }
  const auto records_path = !args.records_path.empty()
                                ? args.records_path
                                : (std::filesystem::path(args.results_root) / identity.suite /
                                   identity.run_id / "runs.jsonl")
                                      .string();

  if (writes_record) {
    check_records_file_to_append(records_path, args.records_path.empty() ? "--out" : "--records");
  }
  // Exact CPU byte accounting for the whole process, installed before any tensor exists.
  measure::CpuMemoryTracker::install();
  ProgressFn progress;
  if (!args.quiet && writes_record) {
    progress = [](const std::string& line) { std::fprintf(stderr, "  %s\n", line.c_str()); };
  }
  const Record record = naming_config_file(
      args.config_path, [&] { return execute_run(config, identity, progress, launch); });
  if (!writes_record) {  // ranks > 0: rank 0's record speaks for the run
    if (record.status != RunStatus::kOk) print_brief_summary(record);
  } else {
    append_record(records_path, record);
    if (args.brief) {
      print_brief_summary(record);
    } else {
      print_summary(record, records_path);
    }
  }
  // A distributed worker that crashed must fail its launcher, which then stops the others.
  return launch && launch->world_size > 1 && record.status == RunStatus::kCrashed ? 1 : 0;
}

int command_run_suite(const RunSuiteArgs& args) {
  nlohmann::json base_patch;
  if (!args.base_patch.empty()) {
    base_patch = nlohmann::json::parse(args.base_patch, nullptr, /*allow_exceptions=*/false);
    if (base_patch.is_discarded()) {
      throw ConfigError("command line", "--base",
                        "got '" + args.base_patch +
                            "', which is not JSON; expected a JSON object of TrainConfig fields, "
                            "e.g. '{\"techniques\": {\"host_memory_reuse\": true}}'");
    }
  }
  const auto suite = load_suite(
      args.suite_path, SuiteSelection{args.only, args.exclude, args.repetitions, base_patch});
  if (args.plan) {  // before the device check: a GPU suite can be looked at anywhere
    std::printf("%s", suite_plan_text(suite, cuda_device_available()).c_str());
    return 0;
  }
  if (suite.device == "cuda" && !cuda_device_available()) {
    throw ConfigError(args.suite_path, "device",
                      "this suite is for \"cuda\" but no CUDA device is available on this machine; "
                      "run a CPU suite (suites/smoke.json, suites/cpu-full.json) here");
  }
  check_output_folder(args.results_root, "--out");
  SuiteRunOptions options;
  options.binary = this_binary();
  if (!args.against_executable.empty()) {
    options.against = check_against_binary(args.against_executable);
    std::fprintf(stderr, "this binary:    %s\nagainst binary: %s\n", options.binary.version.c_str(),
                 options.against->version.c_str());
  }
  options.resume = args.resume;
  options.results_root = args.results_root;
  options.data_root = args.data_root;
  options.time_budget_s = args.time_budget_s;
  const auto summary = run_suite(suite, options);
  std::printf("records: %s\n", summary.records_path.c_str());
  if (!summary.against_records_path.empty()) {
    std::printf("against: %s\n", summary.against_records_path.c_str());
    std::printf("compare: speedbench compare %s\n",
                std::filesystem::path(summary.records_path).parent_path().c_str());
  }
  if (summary.interrupted) return 130;
  return summary.crashed > 0 ? 1 : 0;  // diverged/oom runs are results, a crash is a failure
}

int command_list() {
  std::printf("Workloads (model.arch on data.dataset):\n");
  std::printf("  resnet     CIFAR-style ResNet-(6n+2) on fashion_mnist or synthetic images\n");
  std::printf("  resnet18   ResNet-18 on fashion_mnist or synthetic images\n");
  std::printf("  resnet50   ResNet-50 (bottleneck blocks) on fashion_mnist or synthetic images\n");
  std::printf("             (model.stem: cifar = 3x3 at full resolution, the default but for\n");
  std::printf("             resnet50; imagenet = 7x7 stride 2 + max pool, for 224x224 inputs)\n");
  std::printf("  row_rnn    LSTM/GRU reading an image row by row, on fashion_mnist or synthetic\n");
  std::printf("  char_lm    character-level LSTM/GRU language model on fortunes\n\n");
  std::printf("Techniques (TIPS.md):\n");
  int id_width = 2;  // the longest id's
  for (const auto& t : technique_registry())
    id_width = std::max(id_width, static_cast<int>(t.id.size()));
  std::printf("  %-*s %-4s %-9s %-12s %s\n", id_width, "id", "tip", "devices", "status",
              "claim source");
  for (const auto& t : technique_registry()) {
    std::string devices;
    for (const auto& d : t.devices) devices += (devices.empty() ? "" : ",") + d;
    std::printf("  %-*s %-4s %-9s %-12s %s\n", id_width, t.id.c_str(),
                t.tip > 0 ? std::to_string(t.tip).c_str() : "-", devices.c_str(),
                t.implemented ? "implemented" : "planned", t.source.c_str());
  }
  return 0;
}

int command_lr_find(const LrFindArgs& args) {
  auto config = load_train_config(args.config_path);
  if (!args.data_root.empty()) config.data.root = args.data_root;
  if (!(args.start_lr > 0 && args.end_lr > args.start_lr && args.steps >= 2)) {
    char got[160];
    std::snprintf(got, sizeof got, "got --start-lr %g --end-lr %g --steps %lld", args.start_lr,
                  args.end_lr, static_cast<long long>(args.steps));
    throw ConfigError("command line", "--start-lr/--end-lr/--steps",
                      std::string(got) + ", expected 0 < start-lr < end-lr and steps >= 2");
  }
  check_file_to_overwrite(args.out_path, "--out");  // before the sweep, not after it
  LrFinderOptions options;
  options.start_lr = args.start_lr;
  options.end_lr = args.end_lr;
  options.steps = args.steps;
  measure::CpuMemoryTracker::install();
  const auto result =
      naming_config_file(args.config_path, [&] { return find_learning_rate(config, options); });
  std::printf("LR range test: %zu steps from %g to %g%s\n", result.lrs.size(), options.start_lr,
              options.end_lr, result.stopped_early ? " (stopped early: the loss blew up)" : "");
  std::printf("  lowest smoothed loss at lr %.4g; steepest descent at lr %.4g\n",
              result.lr_at_min_loss, result.steepest_lr);
  std::printf("  suggested peak lr (1cycle max_lr): %.4g\n", result.suggested_lr);
  if (!args.out_path.empty()) {
    write_file_whole(args.out_path, lr_finder_to_json(result, options).dump(2) + "\n");
    std::printf("  curve -> %s\n", args.out_path.c_str());
  }
  return 0;
}

}  // namespace speedbench
