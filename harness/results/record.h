// One Record per run: self-describing (schema version, identity, the full resolved config,
// status, metrics, environment), written as one JSON line. A record alone is enough to rerun it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/train/run_metrics.h"

namespace speedbench {

constexpr int kRecordSchemaVersion = 1;

struct Record {
  int schema_version = kRecordSchemaVersion;
  std::string run_id;  // the suite invocation (results/<suite>/<run_id>/)
  std::string suite;
  int64_t run_index = 0;  // position in the suite's plan
  std::string workload;
  std::string variant = "baseline";
  int64_t repetition = 0;
  int64_t seed = 0;
  RunStatus status = RunStatus::kOk;
  std::string message;                     // why a run is not ok; "" when it is
  std::vector<std::string> techniques_on;  // registry ids whose mechanism this run applies
  std::string started_at;                  // ISO 8601 UTC
  std::string finished_at;
  std::string data_source;
  double unigram_entropy_bits = 0;  // text workloads only (0 otherwise)
  nlohmann::json config;            // the full resolved TrainConfig
  RunMetrics metrics;
  nlohmann::json environment;
};

nlohmann::json record_to_json(const Record& record);
// Throws std::invalid_argument naming the missing or malformed field.
Record record_from_json(const nlohmann::json& json);

// The current UTC time formatted by strftime (e.g. "%Y-%m-%dT%H:%M:%SZ").
std::string utc_now(const char* strftime_format);
// ISO 8601, as records store times.
inline std::string utc_timestamp_now() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }

}  // namespace speedbench
