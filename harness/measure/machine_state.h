// What the machine was like when a run started, for the report's measurement-health flags: its
// cores, the 1-minute load average, and the CPU frequency governor (a governor other than
// "performance" lets clocks, and so step times, drift). The cores other processes kept busy are
// measured over the training itself (other_processes_cpu.h). Torch-free.
#pragma once

#include <nlohmann/json.hpp>

namespace speedbench::measure {

// {"cores": 2, "load_average_1m": 0.4, "cpufreq_governor": "performance" | "unavailable"}.
// Reads three files; takes no time to speak of.
nlohmann::json read_machine_state();

}  // namespace speedbench::measure
