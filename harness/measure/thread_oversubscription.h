// A CPU run whose LibTorch threads, over all its ranks, outnumber the machine's cores has its
// threads time-sliced: every parallel op waits for its slowest thread, so step times grow and
// measure the scheduler more than the technique (a 6-step ResNet-8 run on 2 cores: 1.1 s with 2
// threads, 3.6 s with 16, over 60 s with 1000). run-one warns before such a run; the report flags
// it. Torch-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace speedbench::measure {

// "16 threads on 2 cores", "4 threads (2 ranks x 2) on 2 cores" when threads x ranks > cores,
// else nothing (nothing, too, when the cores are unknown: 0). `cores`: the run's usable cores
// (usable_cpu_cores.h), which an affinity mask or a cgroup quota make fewer than the machine's.
std::optional<std::string> thread_oversubscription(int64_t threads, int64_t ranks, int64_t cores);

// The opposite: how many of the run's usable `cores` its threads leave idle, the LibTorch threads
// of each rank and the loader workers; 0 where they fill the cores, or where the threads or the
// cores are unknown (0).
// A process busy on such a core takes nothing measurable from the run (a one-thread ResNet-8 run
// beside a busy loop on a 2-core VM: throughput 1.001x [0.967, 1.036], 8 pairs;
// bench/idle_core_load.py).
int64_t idle_cores_left(int64_t threads, int64_t ranks, int64_t loader_workers, int64_t cores);

}  // namespace speedbench::measure
