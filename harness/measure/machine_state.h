// What else the machine was doing when a run started, for the report's measurement-health
// flags: how many cores other processes kept busy (sampled from /proc/stat over a short window
// while this process sleeps), the 1-minute load average, and the CPU frequency governor (a
// governor other than "performance" lets clocks, and so step times, drift). Torch-free.
#pragma once

#include <nlohmann/json.hpp>

namespace speedbench::measure {

// {"busy_cores": 0.07, "cores": 2, "load_average_1m": 0.4, "cpufreq_governor": "performance" |
//  "unavailable"}. Takes `window_ms` to sample.
nlohmann::json sample_machine_state(int window_ms = 250);

}  // namespace speedbench::measure
