// `speedbench reproduce RUNS.jsonl|RUN_FOLDER [--line N]`: reruns a recorded run from the config
// embedded in its record and says whether the metrics agree (harness/results/reproduction.h).
#include <cstdio>

#include "harness/cli/commands.h"
#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/measure/cpu_memory_tracker.h"
#include "harness/report/comparisons.h"
#include "harness/results/records_file.h"
#include "harness/results/reproduction.h"

namespace speedbench {

int command_reproduce(const ReproduceArgs& args) {
  // A runs.jsonl or its run folder, found and read as report and compare do.
  const auto results = report::load_results(args.records_path);
  const auto& records = results.records;
  const auto& records_path = results.records_path;
  if (args.line < 0 || args.line > static_cast<int64_t>(records.size())) {
    throw ConfigError("command line", "--line",
                      "got " + std::to_string(args.line) + ", expected 1.." +
                          std::to_string(records.size()) +
                          " (the record's position among the file's records; 0 = the last)");
  }
  const auto& recorded =
      records[args.line == 0 ? records.size() - 1 : static_cast<size_t>(args.line - 1)];
  const auto source =
      records_path + " (record of run_index " + std::to_string(recorded.run_index) + ")";
  auto config = train_config_from_json(recorded.config, source);
  if (!args.data_root.empty()) config.data.root = args.data_root;
  if (recorded.metrics.distributed.world_size > 1) {
    throw ConfigError(
        source, "metrics.distributed.world_size",
        "a DDP run is reproduced with its launcher: save the record's \"config\" to a file and "
        "run speedbench run --config FILE --nproc " +
            std::to_string(recorded.metrics.distributed.world_size));
  }
  check_records_file_to_append(args.out_path, "--out");  // before the rerun, not after it
  std::printf("reproducing %s / %s (repetition %lld, seed %lld) from %s\n",
              recorded.workload.c_str(), recorded.variant.c_str(),
              static_cast<long long>(recorded.repetition), static_cast<long long>(recorded.seed),
              records_path.c_str());
  measure::CpuMemoryTracker::install();
  RunIdentity identity{make_run_id(), "reproduce", recorded.variant, recorded.run_index,
                       recorded.repetition};
  const auto rerun = naming_config_file(source, [&] { return execute_run(config, identity); });
  if (!args.out_path.empty()) append_record(args.out_path, rerun);
  const auto reproduction = compare_reproduction(recorded, rerun);
  std::printf("%s", reproduction_table(reproduction).c_str());
  std::printf("%s\n", reproduction.exact_checks_agree
                          ? (reproduction.timings_agree
                                 ? "reproduced: every check agrees"
                                 : "reproduced: the exact checks agree; timings differ (see above)")
                          : "NOT reproduced: an exact check differs");
  return reproduction.exact_checks_agree ? 0 : 1;
}

}  // namespace speedbench
