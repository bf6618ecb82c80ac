#include "harness/results/record.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <type_traits>

#include "harness/measure/statistics.h"

namespace speedbench {

namespace {

template <typename T>
T field(const nlohmann::json& json, const char* key) {
  if (!json.contains(key))
    throw std::invalid_argument(std::string("record has no field '") + key + "'");
  // A count read from a fraction would be cast, and one beyond the integers' range is undefined.
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!json.at(key).is_number_integer()) {
      throw std::invalid_argument(std::string("record field '") + key + "' is " +
                                  json.at(key).dump() + " (expected a whole number)");
    }
  }
  try {
    return json.at(key).get<T>();
  } catch (const nlohmann::json::exception& error) {
    throw std::invalid_argument(std::string("record field '") + key + "': " + error.what());
  }
}

nlohmann::json object_field(const nlohmann::json& json, const char* key) {
  auto value = field<nlohmann::json>(json, key);
  if (!value.is_object()) {
    throw std::invalid_argument(std::string("record field '") + key + "' is of JSON type " +
                                value.type_name() + " (expected an object)");
  }
  return value;
}

// The keys of a record's free-form sections (config, environment) that reports read, with the
// JSON type each must have where present: another type is a corrupt record, named here rather
// than failing inside a report. Parents come before their children.
struct ReadKey {
  const char* pointer;
  bool (nlohmann::json::*has_type)() const noexcept;
  const char* expected;
};
const ReadKey kKeysTheReportReads[] = {
    {"/config/device", &nlohmann::json::is_string, "\"cpu\" or \"cuda\""},
    {"/config/techniques", &nlohmann::json::is_object, "an object"},
    {"/config/techniques/tf32", &nlohmann::json::is_boolean, "true or false"},
    {"/config/deterministic", &nlohmann::json::is_boolean, "true or false"},
    {"/environment/torch_threads", &nlohmann::json::is_number_integer, "a whole number"},
    {"/environment/cpu_cores", &nlohmann::json::is_number_integer, "a whole number"},
    {"/environment/cpu_cores_usable", &nlohmann::json::is_number_integer, "a whole number"},
    {"/environment/cpu_cores_affinity", &nlohmann::json::is_number_integer, "a whole number"},
    {"/environment/machine_at_start", &nlohmann::json::is_object, "an object"},
    {"/environment/machine_at_start/busy_cores", &nlohmann::json::is_number, "a number"},
    {"/environment/machine_at_start/cpufreq_governor", &nlohmann::json::is_string, "a string"},
};

void check_keys_the_report_reads(const nlohmann::json& record) {
  for (const auto& key : kKeysTheReportReads) {
    const nlohmann::json::json_pointer pointer(key.pointer);
    if (!record.contains(pointer)) continue;
    const auto& value = record.at(pointer);
    if (!(value.*key.has_type)()) {
      auto name = std::string(key.pointer).substr(1);
      std::replace(name.begin(), name.end(), '/', '.');
      throw std::invalid_argument("record field '" + name + "' is " + value.dump() + " (expected " +
                                  key.expected + ")");
    }
  }
}

// A measured quantity that cannot be negative (a count, bytes, a time, a rate): a negative value
// is a corrupt or hand-edited record, named here rather than shown as "-" or as a ratio later.
template <typename T>
T at_least_zero(const nlohmann::json& json, const char* key) {
  const auto value = field<T>(json, key);
  if (value < 0) {
    throw std::invalid_argument(std::string("record field '") + key + "' is " +
                                nlohmann::json(value).dump() + " (expected a number >= 0)");
  }
  return value;
}

// A share of a whole (periods, runs): from 0 to 1.
double share_of_one(const nlohmann::json& json, const char* key) {
  const auto value = field<double>(json, key);
  if (!(value >= 0 && value <= 1)) {
    throw std::invalid_argument(std::string("record field '") + key + "' is " +
                                nlohmann::json(value).dump() + " (expected a share from 0 to 1)");
  }
  return value;
}

std::vector<double> times_at_least_zero(const nlohmann::json& json, const char* key) {
  auto times = field<std::vector<double>>(json, key);
  for (size_t i = 0; i < times.size(); ++i) {
    if (times[i] < 0) {
      throw std::invalid_argument(std::string("record field '") + key + "' has " +
                                  nlohmann::json(times[i]).dump() + " at index " +
                                  std::to_string(i) + " (expected times >= 0)");
    }
  }
  return times;
}

// The losses are float32 tensors' values. Written as the shortest decimal that reads back as the
// same float (at most 9 digits, not the 17 of its double): in the CPU reference's records the
// losses took 665 KB of 2.2 MB that way. Read back through float, they are the values the run had.
nlohmann::json float32_values_to_json(const std::vector<double>& values) {
  nlohmann::json out = nlohmann::json::array();
  for (const double value : values) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text - 1, static_cast<float>(value)).ptr;
    *end = '\0';
    out.push_back(std::strtod(text, nullptr));
  }
  return out;
}

std::vector<double> float32_values_from_json(const nlohmann::json& json, const char* key) {
  auto values = field<std::vector<double>>(json, key);
  for (auto& value : values) value = static_cast<float>(value);
  return values;
}

nlohmann::json optional_to_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json metrics_to_json(const RunMetrics& m) {
  nlohmann::json curve = nlohmann::json::array();
  for (const auto& p : m.curve) {
    curve.push_back({{"step", p.step},
                     {"epoch", p.epoch},
                     {"wall_s", p.wall_s},
                     {"train_loss", p.train_loss},
                     {"test_loss", p.test_loss},
                     {"test_accuracy", p.test_accuracy}});
  }
  const auto steps = measure::summarize(m.step_ms);
  return {
      {"steps", m.steps},
      {"batch_size", m.batch_size},
      {"max_batch_probes", m.max_batch_probes},
      {"amp_skipped_steps", m.amp_skipped_steps},
      {"measured_steps", m.measured_steps},
      {"samples_trained", m.samples_trained},
      {"step_ms", m.step_ms},
      {"step_timing", m.step_timing},
      {"warmup_step_ms", m.warmup_step_ms},
      {"step_losses", float32_values_to_json(m.step_losses)},
      {"step_lrs", m.step_lrs},
      {"step_ms_summary",
       {{"median", steps.median},
        {"mean", steps.mean},
        {"p10", steps.p10},
        {"p90", steps.p90},
        {"cv", steps.cv}}},
      {"data_wait_ms_total", m.data_wait_ms_total},
      {"samples_per_s", m.samples_per_s},
      {"train_wall_s", m.train_wall_s},
      {"eval_wall_s", m.eval_wall_s},
      {"resident_bytes", m.resident_bytes},
      {"peak_allocated_bytes", m.peak_allocated_bytes},
      {"eval_peak_allocated_bytes", m.eval_peak_allocated_bytes},
      {"peak_reserved_bytes", m.peak_reserved_bytes},
      {"peak_rss_bytes", m.peak_rss_bytes},
      {"heap_layout_bytes", m.heap_layout_bytes},
      {"minor_page_faults",
       m.minor_page_faults ? nlohmann::json(*m.minor_page_faults) : nlohmann::json(nullptr)},
      {"parameter_count", m.parameter_count},
      {"train_flops_per_sample", m.train_flops_per_sample},
      {"host_syncs", m.host_syncs},
      {"device_syncs", m.device_syncs ? nlohmann::json(*m.device_syncs) : nlohmann::json(nullptr)},
      {"matmul_peak",
       {{"size", m.matmul_peak_size},
        {"flops_per_s", m.matmul_peak_flops},
        {"kernel", m.matmul_peak_kernel},
        {"flops_per_s_at_start", m.matmul_peak_flops_at_start},
        {"flops_per_s_at_end", m.matmul_peak_flops_at_end}}},
      {"mfu", m.mfu},
      {"other_processes_busy_cores", optional_to_json(m.other_processes_busy_cores)},
      {"stolen_cores", optional_to_json(m.stolen_cores)},
      {"cpu_wait_threads", optional_to_json(m.cpu_wait_threads)},
      {"quota_throttled_share", optional_to_json(m.quota_throttled_share)},
      {"final_train_loss", m.final_train_loss},
      {"final_test_loss", m.final_test_loss},
      {"final_test_accuracy", m.final_test_accuracy},
      {"target_accuracy", m.target_accuracy},
      {"time_to_target_s", optional_to_json(m.time_to_target_s)},
      {"steps_to_target",
       m.steps_to_target ? nlohmann::json(*m.steps_to_target) : nlohmann::json(nullptr)},
      {"curve", curve},
      {"distributed",
       {{"world_size", m.distributed.world_size},
        {"backend", m.distributed.backend},
        {"launcher", m.distributed.launcher},
        {"bucket_cap_bytes", m.distributed.bucket_cap_bytes},
        {"buckets", m.distributed.buckets},
        {"overlapped_buckets", m.distributed.overlapped_buckets},
        {"comm_wait_ms_total", m.distributed.comm_wait_ms_total},
        {"rank_step_ms_median", m.distributed.rank_step_ms_median},
        {"rank_cpu_s", m.distributed.rank_cpu_s}}},
  };
}

RunMetrics metrics_from_json(const nlohmann::json& j) {
  RunMetrics m;
  m.steps = at_least_zero<int64_t>(j, "steps");
  m.batch_size = at_least_zero<int64_t>(j, "batch_size");
  m.max_batch_probes = at_least_zero<int64_t>(j, "max_batch_probes");
  m.amp_skipped_steps = at_least_zero<int64_t>(j, "amp_skipped_steps");
  m.measured_steps = at_least_zero<int64_t>(j, "measured_steps");
  m.samples_trained = at_least_zero<int64_t>(j, "samples_trained");
  m.step_ms = times_at_least_zero(j, "step_ms");
  m.step_losses = float32_values_from_json(j, "step_losses");
  if (j.contains("step_lrs")) m.step_lrs = field<std::vector<double>>(j, "step_lrs");
  if (j.contains("warmup_step_ms")) {  // older records lack it
    m.warmup_step_ms = times_at_least_zero(j, "warmup_step_ms");
  }
  if (j.contains("resident_bytes")) m.resident_bytes = at_least_zero<int64_t>(j, "resident_bytes");
  if (j.contains("train_flops_per_sample")) {
    m.train_flops_per_sample = at_least_zero<double>(j, "train_flops_per_sample");
  }
  m.data_wait_ms_total = at_least_zero<double>(j, "data_wait_ms_total");
  m.samples_per_s = at_least_zero<double>(j, "samples_per_s");
  m.train_wall_s = at_least_zero<double>(j, "train_wall_s");
  m.eval_wall_s = at_least_zero<double>(j, "eval_wall_s");
  m.peak_allocated_bytes = at_least_zero<int64_t>(j, "peak_allocated_bytes");
  m.eval_peak_allocated_bytes = at_least_zero<int64_t>(j, "eval_peak_allocated_bytes");
  m.peak_rss_bytes = at_least_zero<int64_t>(j, "peak_rss_bytes");
  if (j.contains("heap_layout_bytes")) {  // older records held no block
    m.heap_layout_bytes = at_least_zero<int64_t>(j, "heap_layout_bytes");
  }
  m.parameter_count = at_least_zero<int64_t>(j, "parameter_count");
  m.host_syncs = at_least_zero<int64_t>(j, "host_syncs");
  // Fields added with the GPU path (issue 6); older records lack them.
  if (j.contains("step_timing")) m.step_timing = field<std::string>(j, "step_timing");
  if (j.contains("peak_reserved_bytes"))
    m.peak_reserved_bytes = at_least_zero<int64_t>(j, "peak_reserved_bytes");
  if (j.contains("device_syncs") && !j.at("device_syncs").is_null()) {
    m.device_syncs = at_least_zero<int64_t>(j, "device_syncs");
  }
  if (j.contains("matmul_peak")) {
    const auto& peak = j.at("matmul_peak");
    m.matmul_peak_size = field<int64_t>(peak, "size");
    m.matmul_peak_flops = field<std::map<std::string, double>>(peak, "flops_per_s");
    if (peak.contains("kernel")) {  // records before it had one kernel, at::mm
      m.matmul_peak_kernel = field<std::map<std::string, std::string>>(peak, "kernel");
    }
    for (const auto& [key, probe] :
         {std::make_pair("flops_per_s_at_start", &m.matmul_peak_flops_at_start),
          std::make_pair("flops_per_s_at_end", &m.matmul_peak_flops_at_end)}) {
      if (peak.contains(key)) *probe = field<std::map<std::string, double>>(peak, key);
    }
  }
  if (j.contains("mfu")) m.mfu = at_least_zero<double>(j, "mfu");
  // Measured over the training since 2026-12-06; older records have busy_cores in
  // environment.machine_at_start, sampled before the run instead.
  if (j.contains("other_processes_busy_cores") && !j.at("other_processes_busy_cores").is_null()) {
    m.other_processes_busy_cores = at_least_zero<double>(j, "other_processes_busy_cores");
  }
  // Records without it counted steal in other_processes_busy_cores.
  if (j.contains("stolen_cores") && !j.at("stolen_cores").is_null()) {
    m.stolen_cores = at_least_zero<double>(j, "stolen_cores");
  }
  if (j.contains("minor_page_faults") &&
      !j.at("minor_page_faults").is_null()) {  // since 2026-12-07
    m.minor_page_faults = at_least_zero<int64_t>(j, "minor_page_faults");
  }
  if (j.contains("cpu_wait_threads") && !j.at("cpu_wait_threads").is_null()) {  // since 2026-12-07
    m.cpu_wait_threads = at_least_zero<double>(j, "cpu_wait_threads");
  }
  if (j.contains("quota_throttled_share") && !j.at("quota_throttled_share").is_null()) {
    m.quota_throttled_share = share_of_one(j, "quota_throttled_share");  // since 2026-12-07
  }
  m.final_train_loss = field<double>(j, "final_train_loss");
  m.final_test_loss = field<double>(j, "final_test_loss");
  m.final_test_accuracy = field<double>(j, "final_test_accuracy");
  m.target_accuracy = field<double>(j, "target_accuracy");
  if (!field<nlohmann::json>(j, "time_to_target_s").is_null()) {
    m.time_to_target_s = at_least_zero<double>(j, "time_to_target_s");
  }
  if (!field<nlohmann::json>(j, "steps_to_target").is_null()) {
    m.steps_to_target = at_least_zero<int64_t>(j, "steps_to_target");
  }
  for (const auto& p : field<nlohmann::json>(j, "curve")) {
    m.curve.push_back({field<int64_t>(p, "step"), field<double>(p, "epoch"),
                       field<double>(p, "wall_s"), field<double>(p, "train_loss"),
                       field<double>(p, "test_loss"), field<double>(p, "test_accuracy")});
  }
  if (j.contains("distributed")) {  // records before DDP had none: single process
    const auto& d = j.at("distributed");
    auto& out = m.distributed;
    out.world_size = field<int64_t>(d, "world_size");
    out.backend = field<std::string>(d, "backend");
    out.launcher = field<std::string>(d, "launcher");
    out.bucket_cap_bytes = field<int64_t>(d, "bucket_cap_bytes");
    out.buckets = field<int64_t>(d, "buckets");
    out.overlapped_buckets = field<int64_t>(d, "overlapped_buckets");
    out.comm_wait_ms_total = field<double>(d, "comm_wait_ms_total");
    out.rank_step_ms_median = field<std::vector<double>>(d, "rank_step_ms_median");
    if (d.contains("rank_cpu_s")) out.rank_cpu_s = times_at_least_zero(d, "rank_cpu_s");
  }
  return m;
}

}  // namespace

nlohmann::json record_to_json(const Record& r) {
  return {
      {"schema_version", r.schema_version},
      {"run_id", r.run_id},
      {"suite", r.suite},
      {"run_index", r.run_index},
      {"workload", r.workload},
      {"variant", r.variant},
      {"repetition", r.repetition},
      {"seed", r.seed},
      {"status", to_string(r.status)},
      {"message", r.message},
      {"techniques_on", r.techniques_on},
      {"started_at", r.started_at},
      {"finished_at", r.finished_at},
      {"data_source", r.data_source},
      {"unigram_entropy_bits", r.unigram_entropy_bits},
      {"config", r.config},
      {"metrics", metrics_to_json(r.metrics)},
      {"environment", r.environment},
  };
}

Record record_from_json(const nlohmann::json& j) {
  Record r;
  r.schema_version = field<int>(j, "schema_version");
  if (r.schema_version != kRecordSchemaVersion) {
    throw std::invalid_argument("record schema_version " + std::to_string(r.schema_version) +
                                " is not the supported " + std::to_string(kRecordSchemaVersion));
  }
  r.run_id = field<std::string>(j, "run_id");
  r.suite = field<std::string>(j, "suite");
  r.run_index = field<int64_t>(j, "run_index");
  r.workload = field<std::string>(j, "workload");
  r.variant = field<std::string>(j, "variant");
  r.repetition = field<int64_t>(j, "repetition");
  r.seed = field<int64_t>(j, "seed");
  r.status = run_status_from_string(field<std::string>(j, "status"));
  r.message = field<std::string>(j, "message");
  r.techniques_on = field<std::vector<std::string>>(j, "techniques_on");
  r.started_at = field<std::string>(j, "started_at");
  r.finished_at = field<std::string>(j, "finished_at");
  r.data_source = field<std::string>(j, "data_source");
  r.unigram_entropy_bits = field<double>(j, "unigram_entropy_bits");
  r.config = object_field(j, "config");
  r.metrics = metrics_from_json(object_field(j, "metrics"));
  r.environment = object_field(j, "environment");
  check_keys_the_report_reads(j);
  return r;
}

std::string utc_now(const char* strftime_format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, strftime_format, &utc);
  return text;
}

}  // namespace speedbench
