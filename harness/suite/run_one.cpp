#include "harness/suite/run_one.h"

#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/util/Exception.h>
#include <unistd.h>

#include "harness/config/config_error.h"
#include "harness/config/config_loader.h"
#include "harness/distributed/process_group.h"
#include "harness/measure/machine_state.h"
#include "harness/results/environment.h"
#include "harness/techniques/applicability.h"
#include "harness/techniques/registry.h"

namespace speedbench {

namespace {

Record base_record(const TrainConfig& config, const RunIdentity& identity) {
  Record record;
  record.run_id = identity.run_id;
  record.suite = identity.suite;
  record.run_index = identity.run_index;
  record.variant = identity.variant;
  record.repetition = identity.repetition;
  record.workload = workload_name(config);
  record.seed = config.seed;
  record.techniques_on = enabled_techniques(config);
  record.config = train_config_to_json(config);
  record.started_at = utc_timestamp_now();
  return record;
}

// "" when the run can happen on this machine, else why not.
std::string why_not_applicable(const TrainConfig& config) {
  if (config.device == "cuda" && !cuda_device_available()) {
    return "device \"cuda\" requested, but no CUDA device is available on this machine";
  }
  return techniques_not_applicable_here(config);
}

bool is_out_of_memory(const std::string& message) {
  return message.find("out of memory") != std::string::npos ||
         message.find("DefaultCPUAllocator: can't allocate") != std::string::npos;
}

}  // namespace

bool cuda_device_available() {
  const auto& cuda = at::detail::getCUDAHooks();
  return cuda.hasCUDA() && cuda.getNumGPUs() > 0;
}

std::string make_run_id() { return utc_now("%Y%m%d-%H%M%S") + "-" + std::to_string(::getpid()); }

Record execute_run(const TrainConfig& config, const RunIdentity& identity,
                   const ProgressFn& progress,
                   const std::optional<distributed::LaunchEnvironment>& launch) {
  Record record = base_record(config, identity);
  const auto reason = why_not_applicable(config);
  const auto machine_at_start = reason.empty() ? measure::read_machine_state() : nlohmann::json();
  if (!reason.empty()) {
    record.status = RunStatus::kNotApplicable;
    record.message = reason;
  } else {
    try {
      std::shared_ptr<distributed::ProcessGroup> group;
      if (launch && launch->world_size > 1) {
        const auto timeout =
            std::chrono::milliseconds(static_cast<int64_t>(config.techniques.ddp_timeout_s * 1000));
        group = distributed::join_process_group(*launch, config.device, timeout);
      }
      TrainOutcome outcome = train(config, progress, group);
      record.status = outcome.status;
      record.message = outcome.message;
      record.metrics = std::move(outcome.metrics);
      record.unigram_entropy_bits = outcome.unigram_entropy_bits;
      record.data_source = outcome.data_source;
    } catch (const ConfigError&) {
      throw;
    } catch (const c10::OutOfMemoryError& error) {  // the CUDA allocator's, and max_batch's
      record.status = RunStatus::kOutOfMemory;
      record.message = error.what_without_backtrace();
    } catch (const c10::Error& error) {
      const std::string message = error.what_without_backtrace();
      record.status = is_out_of_memory(message) ? RunStatus::kOutOfMemory : RunStatus::kCrashed;
      record.message = message;
    } catch (const std::exception& error) {
      record.status =
          is_out_of_memory(error.what()) ? RunStatus::kOutOfMemory : RunStatus::kCrashed;
      record.message = error.what();
    }
  }
  record.finished_at = utc_timestamp_now();
  record.environment = collect_environment();
  if (!machine_at_start.is_null()) record.environment["machine_at_start"] = machine_at_start;
  return record;
}

Record crashed_record(const TrainConfig& config, const RunIdentity& identity,
                      const std::string& message) {
  Record record = base_record(config, identity);
  record.status = RunStatus::kCrashed;
  record.message = message;
  record.finished_at = record.started_at;
  record.environment = collect_environment();
  return record;
}

}  // namespace speedbench
