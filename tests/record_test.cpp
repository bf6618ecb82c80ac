// Records: every field survives a JSON round trip, and the records file is line-atomic.
#include <gtest/gtest.h>
#include <sched.h>

#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/results/build_commit.h"
#include "harness/results/environment.h"
#include "harness/results/records_file.h"
#include "tests/test_support.h"

namespace speedbench {
namespace {

using testing::TempDir;

Record full_record() {
  Record r;
  r.run_id = "20261129-120000-42";
  r.suite = "smoke";
  r.run_index = 3;
  r.workload = "fashion_mnist/resnet8";
  r.variant = "all_on";
  r.repetition = 1;
  r.seed = 9;
  r.status = RunStatus::kDiverged;
  r.message = "loss became nan at step 7";
  r.techniques_on = {"input_norm", "bn_no_bias"};
  r.started_at = "2026-11-29T12:00:00Z";
  r.finished_at = "2026-11-29T12:01:00Z";
  r.data_source = "/usr/share/datasets/fashion-mnist";
  r.unigram_entropy_bits = 4.5;
  const TrainConfig defaults;
  r.config = train_config_to_json(defaults);
  auto& m = r.metrics;
  m.steps = 7;
  m.measured_steps = 2;
  m.samples_trained = 896;
  m.step_ms = {90.5, 91.25};
  m.warmup_step_ms = {850.5, 95.0};
  // Losses as a run has them: float32 values (2.3f is 2.2999999523162842 as a double).
  for (const float loss : {2.3f, 2.1f, 1.9f, 1.7f, 1.6f, 1.5f, 1.45f})
    m.step_losses.push_back(loss);
  m.data_wait_ms_total = 1.5;
  m.samples_per_s = 1400.25;
  m.train_wall_s = 1.75;
  m.eval_wall_s = 0.5;
  m.peak_allocated_bytes = 123456789;
  m.eval_peak_allocated_bytes = 23456789;
  m.peak_rss_bytes = 987654321;
  m.heap_layout_bytes = 4096;
  m.minor_page_faults = 4321;
  m.parameter_count = 78090;
  m.host_syncs = 9;
  m.step_timing = "cuda_events";
  m.peak_reserved_bytes = 134217728;
  m.device_syncs = 8;
  m.matmul_peak_size = 8192;
  m.matmul_peak_flops = {{"bf16", 7.5e14}, {"fp32", 5.25e13}};
  m.matmul_peak_kernel = {{"bf16", "at::mm"}, {"fp32", "at::mm"}};
  m.matmul_peak_flops_at_start = {{"bf16", 7.5e14}, {"fp32", 2.625e13}};
  m.matmul_peak_flops_at_end = {{"bf16", 7.25e14}, {"fp32", 5.25e13}};
  m.mfu = 0.125;
  m.other_processes_busy_cores = 0.375;
  m.stolen_cores = 0.125;
  m.cpu_wait_threads = 0.0625;
  m.quota_throttled_share = 0.25;
  m.distributed.rank_cpu_s = {1.5, 1.25};
  m.final_train_loss = 1.45;
  m.final_test_loss = 1.5;
  m.final_test_accuracy = 0.5;
  m.target_accuracy = 0.4;
  m.time_to_target_s = 1.25;
  m.steps_to_target = 5;
  m.curve = {{5, 0.5, 1.25, 1.8, 1.6, 0.45}, {7, 0.7, 1.75, 1.5, 1.5, 0.5}};
  r.environment = collect_environment();
  return r;
}

TEST(RecordTest, RoundTripsThroughJsonWithEveryField) {
  const auto original = full_record();
  const auto json = record_to_json(original);
  for (const auto* key : {"schema_version", "run_id", "suite", "run_index", "workload", "variant",
                          "repetition", "seed", "status", "message", "techniques_on", "started_at",
                          "finished_at", "config", "metrics", "environment"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  const auto back = record_from_json(nlohmann::json::parse(json.dump()));
  EXPECT_EQ(record_to_json(back), json);
  EXPECT_EQ(back.status, RunStatus::kDiverged);
  EXPECT_EQ(back.metrics.step_losses, original.metrics.step_losses);
  // Written at float precision: "2.3", not "2.299999952316284".
  EXPECT_NE(json.dump().find("\"step_losses\":[2.3,2.1,1.9,1.7,1.6,1.5,1.45]"), std::string::npos)
      << json["metrics"]["step_losses"].dump();
  // Records written before, with every double's 17 digits, read as the same losses.
  auto long_form = nlohmann::json::parse(json.dump());
  long_form["metrics"]["step_losses"] = original.metrics.step_losses;
  ASSERT_NE(long_form.dump().find("2.299999952316284"), std::string::npos);
  EXPECT_EQ(record_from_json(long_form).metrics.step_losses, original.metrics.step_losses);
  EXPECT_EQ(*back.metrics.time_to_target_s, 1.25);
  EXPECT_EQ(back.metrics.curve.size(), 2u);
  EXPECT_EQ(back.metrics.curve[1].test_accuracy, 0.5);
  EXPECT_EQ(back.metrics.step_timing, "cuda_events");
  EXPECT_EQ(*back.metrics.device_syncs, 8);
  EXPECT_EQ(back.metrics.matmul_peak_flops.at("bf16"), 7.5e14);
  EXPECT_EQ(back.metrics.matmul_peak_kernel.at("fp32"), "at::mm");
  EXPECT_EQ(back.metrics.matmul_peak_flops_at_start.at("fp32"), 2.625e13);
  EXPECT_EQ(back.metrics.matmul_peak_flops_at_end.at("bf16"), 7.25e14);
  EXPECT_EQ(back.metrics.mfu, 0.125);
  EXPECT_EQ(back.metrics.warmup_step_ms, original.metrics.warmup_step_ms);
  EXPECT_EQ(*back.metrics.other_processes_busy_cores, 0.375);
  EXPECT_EQ(*back.metrics.stolen_cores, 0.125);
  EXPECT_EQ(*back.metrics.cpu_wait_threads, 0.0625);
  EXPECT_EQ(*back.metrics.quota_throttled_share, 0.25);
  EXPECT_EQ(*back.metrics.minor_page_faults, 4321);
  EXPECT_EQ(back.metrics.heap_layout_bytes, 4096);
  EXPECT_EQ(back.metrics.distributed.rank_cpu_s, (std::vector<double>{1.5, 1.25}));
}

// Runs timed their matmul peak at their start only until 2026-12-07.
TEST(RecordTest, ARecordWithOneMatmulProbeStillReads) {
  auto json = record_to_json(full_record());
  json["metrics"]["matmul_peak"].erase("flops_per_s_at_start");
  json["metrics"]["matmul_peak"].erase("flops_per_s_at_end");
  const auto back = record_from_json(json);
  EXPECT_EQ(back.metrics.matmul_peak_flops.at("fp32"), 5.25e13);
  EXPECT_TRUE(back.metrics.matmul_peak_flops_at_start.empty());
  EXPECT_TRUE(back.metrics.matmul_peak_flops_at_end.empty());
  json["metrics"]["matmul_peak"]["flops_per_s_at_end"] = "fast";
  try {
    record_from_json(json);
    FAIL() << "a probe that is not a map of FLOP/s was read";
  } catch (const std::exception& error) {
    EXPECT_NE(std::string(error.what()).find("flops_per_s_at_end"), std::string::npos)
        << error.what();
  }
}

// Other processes' load was sampled before the run, into environment.machine_at_start, until
// 2026-12-06; those records have no measure over the training and no ranks' CPU.
TEST(RecordTest, ARecordFromBeforeTheOtherLoadWasMeasuredInTrainingStillReads) {
  auto json = record_to_json(full_record());
  json["metrics"].erase("other_processes_busy_cores");
  json["metrics"]["distributed"].erase("rank_cpu_s");
  const auto back = record_from_json(json);
  EXPECT_FALSE(back.metrics.other_processes_busy_cores.has_value());
  EXPECT_TRUE(back.metrics.distributed.rank_cpu_s.empty());
  json["metrics"]["other_processes_busy_cores"] = nullptr;  // where it could not be measured
  EXPECT_FALSE(record_from_json(json).metrics.other_processes_busy_cores.has_value());
}

// Until 2026-12-07 the hypervisor's steal was counted in other_processes_busy_cores, and the
// threads' waits for a CPU, the page faults and the quota's throttling were not measured, nor
// a heap layout drawn: a record without them reads, with none.
TEST(RecordTest, ARecordFromBeforeStealAndCpuWaitWereMeasuredStillReads) {
  auto json = record_to_json(full_record());
  json["metrics"].erase("stolen_cores");
  json["metrics"].erase("cpu_wait_threads");
  json["metrics"].erase("minor_page_faults");
  json["metrics"].erase("quota_throttled_share");
  json["metrics"].erase("heap_layout_bytes");
  const auto back = record_from_json(json);
  EXPECT_EQ(back.metrics.heap_layout_bytes, 0);  // they held no block
  EXPECT_EQ(*back.metrics.other_processes_busy_cores, 0.375);
  EXPECT_FALSE(back.metrics.stolen_cores.has_value());
  EXPECT_FALSE(back.metrics.cpu_wait_threads.has_value());
  EXPECT_FALSE(back.metrics.minor_page_faults.has_value());
  EXPECT_FALSE(back.metrics.quota_throttled_share.has_value());
  json["metrics"]["quota_throttled_share"] = nullptr;  // where no cgroup of the run sets a quota
  EXPECT_FALSE(record_from_json(json).metrics.quota_throttled_share.has_value());
  json["metrics"]["stolen_cores"] = nullptr;      // where /proc/stat could not be read
  json["metrics"]["cpu_wait_threads"] = nullptr;  // where the kernel keeps no schedstat
  EXPECT_FALSE(record_from_json(json).metrics.stolen_cores.has_value());
  EXPECT_FALSE(record_from_json(json).metrics.cpu_wait_threads.has_value());
}

TEST(RecordTest, APeakRecordedBeforeItNamedItsKernelStillReads) {
  auto json = record_to_json(full_record());
  json["metrics"]["matmul_peak"].erase("kernel");
  const auto back = record_from_json(json);
  EXPECT_EQ(back.metrics.matmul_peak_flops.at("fp32"), 5.25e13);
  EXPECT_TRUE(back.metrics.matmul_peak_kernel.empty());
}

TEST(RecordTest, ARecordFromBeforeTheGpuFieldsStillReads) {
  auto json = record_to_json(full_record());
  for (const auto* key : {"step_timing", "peak_reserved_bytes", "device_syncs", "matmul_peak",
                          "mfu", "warmup_step_ms"}) {
    json["metrics"].erase(key);
  }
  const auto back = record_from_json(json);
  EXPECT_EQ(back.metrics.step_timing, "host_clock");
  EXPECT_FALSE(back.metrics.device_syncs.has_value());
  EXPECT_EQ(back.metrics.mfu, 0.0);
  EXPECT_TRUE(back.metrics.warmup_step_ms.empty());
}

TEST(RecordTest, MissingTargetIsNullAndStaysUnset) {
  auto record = full_record();
  record.metrics.time_to_target_s.reset();
  record.metrics.steps_to_target.reset();
  const auto json = record_to_json(record);
  EXPECT_TRUE(json["metrics"]["time_to_target_s"].is_null());
  EXPECT_FALSE(record_from_json(json).metrics.time_to_target_s.has_value());
}

TEST(RecordTest, EnvironmentNamesTheMachineAndTheBuild) {
  const auto env = collect_environment();
  for (const auto* key :
       {"host", "cpu_model", "cpu_cores", "cpu_cores_usable", "cpu_cores_affinity", "torch_threads",
        "os", "compiler", "build_type", "libtorch_version", "cuda_available", "git_commit"}) {
    EXPECT_TRUE(env.contains(key)) << key;
  }
  // The CPUs the other-load measure counts: the affinity mask's, no fewer than the usable cores
  // (which a cgroup quota may make fewer).
  cpu_set_t affinity;
  ASSERT_EQ(sched_getaffinity(0, sizeof affinity, &affinity), 0);
  EXPECT_EQ(env["cpu_cores_affinity"].get<int64_t>(), CPU_COUNT(&affinity));
  EXPECT_GE(env["cpu_cores_affinity"].get<int64_t>(), env["cpu_cores_usable"].get<int64_t>());
  EXPECT_EQ(env["libtorch_version"], "2.11.0");
  EXPECT_FALSE(env["aten_cpu_capability"].get<std::string>().empty());
  EXPECT_EQ(env["git_commit"], build_git_commit()) << "the binary's commit, not the tree's now";
}

// cpu_isa comes from cpuinfo through ATen; the kernel's own flags line must say the same.
TEST(RecordTest, EnvironmentNamesTheCpuInstructionSetsAsTheKernelReportsThem) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, flags;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("flags", 0) == 0) {
      flags = line.substr(line.find(':') + 1) + " ";
      break;
    }
  }
  if (flags.empty()) GTEST_SKIP() << "no x86 flags line in /proc/cpuinfo";
  const auto isa = collect_environment()["cpu_isa"];
  // cpuinfo's name -> the kernel's
  const std::pair<const char*, const char*> names[] = {{"avx2", "avx2"},
                                                       {"avx512_f", "avx512f"},
                                                       {"avx512_bf16", "avx512_bf16"},
                                                       {"amx_tile", "amx_tile"},
                                                       {"amx_bf16", "amx_bf16"}};
  for (const auto& [ours, kernels] : names) {
    ASSERT_TRUE(isa.contains(ours)) << ours;
    const bool kernel_says = flags.find(std::string(" ") + kernels + " ") != std::string::npos;
    EXPECT_EQ(isa[ours].get<bool>(), kernel_says) << ours;
  }
  const auto caches = collect_environment()["cpu_cache_bytes"];
  EXPECT_GT(caches.value("l1d", 0), 0);
}

TEST(RecordTest, MissingFieldIsNamed) {
  auto json = record_to_json(full_record());
  json["metrics"].erase("samples_per_s");
  try {
    record_from_json(json);
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("samples_per_s"), std::string::npos);
  }
}

// A negative count, size, time or rate, or a fractional count, cannot have been measured, and a
// config that is no object was not written by speedbench: the record is named as corrupt (field,
// value, what was expected) instead of turning into "-", a ratio, a JSON library's message or
// (a count beyond the integers' range) undefined behaviour in a report.
TEST(RecordTest, ANegativeMeasurementOrAMisshapenSectionIsNamed) {
  // (field path, its damaged value, the error)
  const std::vector<std::tuple<nlohmann::json::json_pointer, nlohmann::json, std::string>> cases = {
      {"/metrics/samples_per_s"_json_pointer, -5.0,
       "record field 'samples_per_s' is -5.0 (expected a number >= 0)"},
      {"/metrics/other_processes_busy_cores"_json_pointer, -0.5,
       "record field 'other_processes_busy_cores' is -0.5 (expected a number >= 0)"},
      {"/metrics/stolen_cores"_json_pointer, -0.25,
       "record field 'stolen_cores' is -0.25 (expected a number >= 0)"},
      {"/metrics/cpu_wait_threads"_json_pointer, -1.0,
       "record field 'cpu_wait_threads' is -1.0 (expected a number >= 0)"},
      {"/metrics/quota_throttled_share"_json_pointer, 1.5,
       "record field 'quota_throttled_share' is 1.5 (expected a share from 0 to 1)"},
      {"/metrics/quota_throttled_share"_json_pointer, -0.25,
       "record field 'quota_throttled_share' is -0.25 (expected a share from 0 to 1)"},
      {"/metrics/distributed/rank_cpu_s"_json_pointer,
       {1.0, -1.0},
       "record field 'rank_cpu_s' has -1.0 at index 1 (expected times >= 0)"},
      {"/metrics/heap_layout_bytes"_json_pointer, -64,
       "record field 'heap_layout_bytes' is -64 (expected a number >= 0)"},
      {"/metrics/peak_allocated_bytes"_json_pointer, -1,
       "record field 'peak_allocated_bytes' is -1 (expected a number >= 0)"},
      {"/metrics/step_ms"_json_pointer,
       {10.0, -2.5},
       "record field 'step_ms' has -2.5 at index 1 (expected times >= 0)"},
      {"/metrics/steps"_json_pointer, -1e308,
       "record field 'steps' is -1e+308 (expected a whole number)"},
      {"/metrics/steps"_json_pointer, 2.5, "record field 'steps' is 2.5 (expected a whole number)"},
      {"/config"_json_pointer, nlohmann::json::array(),
       "record field 'config' is of JSON type array (expected an object)"},
      {"/config/device"_json_pointer, 0,
       "record field 'config.device' is 0 (expected \"cpu\" or \"cuda\")"},
      {"/config/techniques"_json_pointer, 5,
       "record field 'config.techniques' is 5 (expected an object)"},
      {"/environment/machine_at_start"_json_pointer, 5,
       "record field 'environment.machine_at_start' is 5 (expected an object)"},
      {"/environment/torch_threads"_json_pointer, "x",
       "record field 'environment.torch_threads' is \"x\" (expected a whole number)"},
      {"/environment/cpu_cores_affinity"_json_pointer, 1.5,
       "record field 'environment.cpu_cores_affinity' is 1.5 (expected a whole number)"}};
  for (const auto& [field, value, expected] : cases) {
    auto json = record_to_json(full_record());
    json[field] = value;
    try {
      record_from_json(json);
      ADD_FAILURE() << "no error for " << expected;
    } catch (const std::invalid_argument& error) {
      EXPECT_EQ(std::string(error.what()), expected);
    }
  }
  auto zero = record_to_json(full_record());
  zero["metrics"]["samples_per_s"] = 0.0;  // a run that trained nothing: measured, not corrupt
  EXPECT_EQ(record_from_json(zero).metrics.samples_per_s, 0.0);

  TempDir dir;  // in a records file: the file and the line too
  append_record(dir.file("runs.jsonl"), full_record());
  auto negative_rate = record_to_json(full_record());
  negative_rate["metrics"]["samples_per_s"] = -5.0;
  std::ofstream(dir.file("runs.jsonl"), std::ios::app) << negative_rate.dump() << "\n";
  try {
    read_records(dir.file("runs.jsonl"));
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("runs.jsonl"), std::string::npos) << what;
    EXPECT_NE(what.find("line 2"), std::string::npos) << what;
    EXPECT_NE(what.find("'samples_per_s' is -5.0"), std::string::npos) << what;
  }
}

TEST(RecordsFileTest, AppendsOneParsableLinePerRecord) {
  TempDir dir;
  const auto path = dir.file("suite/run/runs.jsonl");
  append_record(path, full_record());
  auto second = full_record();
  second.run_index = 4;
  append_record(path, second);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].run_index, 4);
  EXPECT_EQ(read_last_record(path).run_index, 4);
}

// A writer that died mid-line left a line without its newline: the next record is not glued to
// it (both would be unreadable), the unfinished line is dropped.
TEST(RecordsFileTest, AnAppendAfterAnUnfinishedLineDropsThatLine) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  append_record(path, full_record());
  std::ofstream(path, std::ios::app) << "{\"schema_version\": 1, \"run_id\": \"r";
  auto second = full_record();
  second.run_index = 7;
  append_record(path, second);
  const auto records = read_records(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].run_index, full_record().run_index);
  EXPECT_EQ(records[1].run_index, 7);

  // A file that is one unfinished line, longer than one read of the tail, is cut to nothing.
  std::ofstream(dir.file("one.jsonl")) << std::string(10000, 'x');
  append_record(dir.file("one.jsonl"), second);
  ASSERT_EQ(read_records(dir.file("one.jsonl")).size(), 1u);
  EXPECT_FALSE(drop_partial_last_line(dir.file("one.jsonl")));  // it ends with its newline
  std::ofstream(dir.file("one.jsonl"), std::ios::app) << std::string(5000, 'y');
  EXPECT_TRUE(drop_partial_last_line(dir.file("one.jsonl")));
  EXPECT_EQ(read_records(dir.file("one.jsonl")).size(), 1u);
}

TEST(RecordsFileTest, LastRecordOfAnEmptyFileIsAnError) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  std::ofstream(path) << "\n";
  try {
    read_last_record(path);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("the file has no records"), std::string::npos)
        << error.what();
  }
}

TEST(RecordsFileTest, CorruptLineIsReportedWithItsNumber) {
  TempDir dir;
  const auto path = dir.file("runs.jsonl");
  append_record(path, full_record());
  std::ofstream(path, std::ios::app) << "{\"schema_version\": 1, \"run_id\"\n";
  try {
    read_records(path);
    FAIL() << "no error";
  } catch (const ConfigError& error) {
    EXPECT_NE(std::string(error.what()).find("field 'line 2'"), std::string::npos) << error.what();
  }
}

// plan.json and builds.json are written whole or not at all: a disk that fills up mid-write (its
// .partial is /dev/full here) leaves no file, and says which.
TEST(RecordsFileTest, AJsonFileThatCannotBeWrittenWholeIsNotWrittenAtAll) {
  TempDir dir;
  const std::filesystem::path path = dir.file("plan.json");
  write_json_file_whole(path, {{"runs", 2}});
  EXPECT_EQ(nlohmann::json::parse(testing::read_text(path.string()))["runs"], 2);

  std::filesystem::remove(path);
  std::filesystem::create_symlink("/dev/full", dir.file("plan.json.partial"));
  try {
    write_json_file_whole(path, {{"runs", 2}});
    FAIL() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find(path.string() + ": could not be written"),
              std::string::npos)
        << error.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::is_symlink(dir.file("plan.json.partial")));
}

}  // namespace
}  // namespace speedbench
