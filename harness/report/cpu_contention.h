// What held a folder's runs back from the CPU while they trained, as each run measured it: the
// cores other processes kept busy (metrics.other_processes_busy_cores,
// harness/measure/other_processes_cpu.h; records before 2026-12-06 did not measure it), the cores
// the hypervisor gave to other guests (metrics.stolen_cores, steal; records before 2026-12-07
// counted it with the other processes), and the run's threads that waited for a CPU, whatever
// the cause (metrics.cpu_wait_threads, harness/measure/run_queue_wait.h; since 2026-12-07), and
// the share of its cgroup CPU quota's periods in which the quota stopped it (metrics.
// quota_throttled_share, harness/measure/cpu_quota_throttling.h; where a quota is set). The
// report says it for its folder, `compare` for both: a folder whose runs shared the machine with
// other work ran slower for that, not for its build. Torch-free.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "harness/report/comparisons.h"

namespace speedbench::report {

// One value per ok run that measured it, in record order.
struct CpuContention {
  std::vector<double> busy_cores;             // other processes
  std::vector<double> stolen_cores;           // the hypervisor
  std::vector<double> cpu_wait_threads;       // the run's threads, ready to run, waiting for a CPU
  std::vector<double> quota_throttled_share;  // its cgroup CPU quota's periods that stopped it
};

CpuContention cpu_contention_of_runs(const Results& results);

// "median 0.01 cores, 90th percentile 0.02, most 0.03, over 111 runs" of `busy_cores`; where it
// is empty, "not measured (by builds before 2026-12-06)".
std::string other_load_text(const CpuContention& contention);
// The same of `stolen_cores`; where it is empty, "not measured apart (by builds before
// 2026-12-07)".
std::string steal_text(const CpuContention& contention);
// "median 0.02 threads, ..." of `cpu_wait_threads`; where it is empty, "not measured (by builds
// before 2026-12-07)".
std::string cpu_wait_text(const CpuContention& contention);

// {"runs": 111, "median_busy_cores": 0.01, "p90_busy_cores": 0.02, "max_busy_cores": 0.03,
//  "stolen": {"runs": 111, "median_cores": 0, "p90_cores": 0, "max_cores": 0}}; "stolen" null
// where no run measured steal apart, and the whole null where no run measured other load.
nlohmann::json other_load_json(const CpuContention& contention);
// {"runs": 111, "median_threads": 0.02, "p90_threads": 0.03, "max_threads": 0.05}, or null.
nlohmann::json cpu_wait_json(const CpuContention& contention);
// "median 0.00 of the quota's periods, ..." of `quota_throttled_share`; where it is empty, "no
// CPU quota (or builds before 2026-12-07)".
std::string quota_throttling_text(const CpuContention& contention);
// {"runs": 4, "median_share": 0.5, "p90_share": 1, "max_share": 1}, or null where no run had a
// quota.
nlohmann::json quota_throttling_json(const CpuContention& contention);

}  // namespace speedbench::report
